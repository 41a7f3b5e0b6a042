"""Racing refunds of one order: exactly one is registered (and its guest told once), every other
caller is told why. Staff turned the refund's confirmation off, so the racers really register.

Real threads in a child process on file SQLite and on PostgreSQL (where both racers can
pass the existence check and the one-to-one key decides).
"""


from tests.support.django_process import run_django

ORDERS, THREADS = 3, 8


def test_concurrent_refunds_of_one_order_register_exactly_one(database_kind, django_child):
    outcome = run_django(
        django_child(database_kind), "tests.orders.scenarios:concurrent_refunds", orders=ORDERS, threads=THREADS
    )
    assert outcome["vendor"] == {"sqlite": "sqlite", "postgres": "postgresql"}[database_kind]
    for order_no, codes in outcome["per_order"].items():
        assert codes == {"ok": 1, "refund_exists": THREADS - 1}, order_no
    assert set(outcome["refund_rows"].values()) == {1}
    assert set(outcome["guest_notices"].values()) == {1}  # the guest is told once, by the one that won
