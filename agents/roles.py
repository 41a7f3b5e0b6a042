"""The staff roles Agent Desk ships: Django groups and the permissions each holds.

``seed_demo`` creates them with a demo user each; a deployment may use them as they are, edit them
in the admin, or make its own. Permissions are named "app_label.codename" (strings, so this
module imports no domain app). Superusers hold every permission without a group.
"""

from django.contrib.auth.models import Group, Permission
from django.db.models import Q

# Everything a role's members may read besides the auditor's "view everything".
_DESK_READS = ("agents.view_agent", "agents.view_tool", "agents.view_conversation", "agents.view_pendingaction")
# Asking an agent, and deciding what it proposes (the write's own permission is needed too).
_AGENT_WORK = ("agents.chat_agent", "agents.confirm_pendingaction")

ROLES: dict[str, tuple[str, ...]] = {
    "city operator": (
        *_DESK_READS, *_AGENT_WORK,
        "agents.run_autonomy", "agents.view_autonomyround", "agents.view_agentactionlog", "agents.view_toolcall",
        "city.view_agentresource", "city.care_for_residents", "city.view_resourcetransfer", "city.transfer_resources",
        "city.view_creditentry", "city.add_creditentry", "city.view_stockadjustment", "city.add_stockadjustment",
        "city.view_marketorder", "city.add_marketorder", "city.change_marketorder",
        "city.view_building", "city.add_building", "city.change_building", "city.view_checkin", "city.add_checkin",
        "city.view_purchase", "city.add_purchase", "city.view_citychatmessage", "city.add_citychatmessage",
        "city.view_resourcetype", "city.view_shopitem",
        "bounties.view_bounty", "bounties.add_bounty", "bounties.change_bounty",
    ),
    "fund manager": (*_DESK_READS, *_AGENT_WORK, "funds.view_fund", "funds.add_fund", "funds.change_fund"),
    "front desk": (
        *_DESK_READS, *_AGENT_WORK,
        "orders.view_order", "orders.view_channelmessage", "orders.add_channelmessage", "orders.change_channelmessage",
        "orders.view_refund", "orders.add_refund", "orders.change_refund",
    ),
    "auditor": (),  # every view_* permission, nothing else: see apply_roles
    # Configures the agents (persona, model, grants, active flag) and the tools; chats with none.
    "agent admin": (
        "agents.view_agent", "agents.add_agent", "agents.change_agent", "agents.view_tool", "agents.change_tool",
        "agents.view_toolcall",
    ),
}
AUDITOR = "auditor"
# The demo user of each role (seed_demo): same password as the demo admin.
DEMO_USERS = {
    "city-operator": "city operator", "fund-manager": "fund manager", "front-desk": "front desk", "auditor": AUDITOR,
    "agent-admin": "agent admin",
}


def role_permissions(role: str) -> list[Permission]:
    """The ``Permission`` rows of ``role``; raises ``LookupError`` naming any that does not exist."""
    if role == AUDITOR:
        return list(Permission.objects.filter(codename__startswith="view_"))
    names = ROLES[role]
    query = Q()
    for name in names:
        app_label, codename = name.split(".", 1)
        query |= Q(content_type__app_label=app_label, codename=codename)
    found = list(Permission.objects.filter(query).select_related("content_type"))
    missing = set(names) - {f"{p.content_type.app_label}.{p.codename}" for p in found}
    if missing:
        raise LookupError(f"role {role!r} names unknown permissions: {', '.join(sorted(missing))}")
    return found


def apply_roles() -> dict[str, Group]:
    """Create or update every role's group to hold exactly its permissions; returns them by name."""
    groups = {}
    for role in ROLES:
        group, _ = Group.objects.get_or_create(name=role)
        group.permissions.set(role_permissions(role))
        groups[role] = group
    return groups
