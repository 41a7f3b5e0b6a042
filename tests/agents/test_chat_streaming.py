"""Streamed chat replies and Stop, through the real ``openai`` SDK against the scripted server.

The scripted server streams as OpenAI does (text pieces, tool-call deltas, ``[DONE]``) and
notices a client that closes mid-answer: that is how these tests see Stop reach the model.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import warnings
from urllib.parse import urlencode, urlsplit

import pytest
from django.test import Client

from agents.chat import run_chat
from core.errors import ApplicationError
from agents.models import Message, ToolCall
from tests.agents.fixtures import alice, endpoint  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db



class Recorder:
    """A listener as the page's: pieces with the time each came; stops after ``stop_after`` pieces or seconds."""

    def __init__(self, *, stop_after_pieces: int | None = None, stop_after_seconds: float | None = None) -> None:
        self.pieces: list[str] = []
        self.times: list[float] = []
        self.tools: list[dict] = []
        self.conversations: list[int] = []
        self._stop = threading.Event()
        self._stop_after_pieces = stop_after_pieces
        self._deadline = time.monotonic() + stop_after_seconds if stop_after_seconds is not None else None

    def began(self, conversation) -> None:
        self.conversations.append(conversation.pk)

    def text(self, piece: str) -> None:
        self.pieces.append(piece)
        self.times.append(time.monotonic())
        if self._stop_after_pieces is not None and len(self.pieces) >= self._stop_after_pieces:
            self._stop.set()

    def tool_done(self, made: dict) -> None:
        self.tools.append(made)

    @property
    def stopped(self) -> bool:
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self._stop.set()
        return self._stop.is_set()


def test_pieces_reach_the_listener_before_the_model_has_written_the_rest(endpoint, alice, staff_user):
    endpoint.reply(["你好", "，我是", " Alice", "。"], chunk_delay=0.3)
    listener = Recorder()
    result = run_chat(agent=alice, message="你好", user=staff_user, listener=listener)

    assert listener.pieces == ["你好", "，我是", " Alice", "。"]
    assert result.reply == "你好，我是 Alice。" and not result.stopped
    assert listener.conversations == [result.conversation.pk]
    # The first piece was in hand before the server wrote the last one (0.9 s later).
    assert listener.times[0] < endpoint.chunk_times[-2] - 0.5
    assert endpoint.requests[0]["stream"] is True
    assert endpoint.streams_finished == 1 and endpoint.aborted_streams == 0


def test_stop_closes_the_model_request_and_keeps_the_partial_reply_marked_stopped(endpoint, alice, staff_user):
    endpoint.reply([f"第{n}句。" for n in range(20)], chunk_delay=0.25)  # 5 s if read to the end
    listener = Recorder(stop_after_pieces=2)
    started = time.monotonic()
    result = run_chat(agent=alice, message="讲个长故事", user=staff_user, listener=listener)

    assert time.monotonic() - started < 2.5
    assert result.stopped and result.reply == "第0句。第1句。"
    # The server saw its client go before the script ended: the slot is free again.
    assert endpoint.stream_aborted.wait(2.0)
    assert endpoint.aborted_streams == 1 and endpoint.streams_finished == 0
    reply = result.conversation.messages.get(role=Message.Role.ASSISTANT)
    assert reply.stopped and reply.content == "第0句。第1句。"


def test_stop_holds_even_when_the_model_writes_faster_than_the_stop_is_polled(endpoint, alice, staff_user):
    """A small local model's pieces came closer together than STOP_POLL: Stop was never seen until the end."""
    endpoint.reply([f"第{n}句。" for n in range(40)], chunk_delay=0.005)  # 40 pieces in 0.2 s, no 0.1 s gap
    result = run_chat(agent=alice, message="讲个长故事", user=staff_user, listener=Recorder(stop_after_pieces=3))

    assert result.stopped and result.reply == "第0句。第1句。第2句。"


def test_a_stopped_reply_goes_back_to_the_model_as_what_was_said(endpoint, alice, staff_user):
    endpoint.reply(["一", "二", "三", "四"], chunk_delay=0.3).reply("好的。")
    first = run_chat(agent=alice, message="数数", user=staff_user, listener=Recorder(stop_after_pieces=1))
    run_chat(agent=alice, message="停，换个话题", user=staff_user, conversation_id=first.conversation.pk)

    sent = endpoint.requests[-1]["messages"]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "user"]
    assert sent[2]["content"] == "一"


def test_streamed_tool_call_deltas_are_put_together_and_run_once(endpoint, alice, staff_user):
    endpoint.tool_calls([("add_my_credits", {"amount": 5})], chunk_delay=0.05).reply(["加好了", "。"])
    listener = Recorder()
    result = run_chat(agent=alice, message="给我加 5 个信用点", user=staff_user, listener=listener)

    alice.refresh_from_db()
    assert alice.credits == 105
    assert ToolCall.objects.count() == 1
    assert [t["name"] for t in listener.tools] == ["add_my_credits"]
    assert listener.tools[0]["result"]["status"] == "success"
    assert result.reply == "加好了。"
    call = endpoint.requests[1]["messages"][-2]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"amount": 5}


@pytest.mark.parametrize("arguments", ['{"amount": 5', {"amount": 500}], ids=["cut-off JSON", "out of range"])
def test_an_invalid_streamed_call_is_a_tool_error_and_changes_nothing(endpoint, alice, staff_user, arguments):
    endpoint.tool_calls([("add_my_credits", arguments)]).reply("没加成。")
    listener = Recorder()
    run_chat(agent=alice, message="给我加信用点", user=staff_user, listener=listener)

    alice.refresh_from_db()
    assert alice.credits == 100
    assert listener.tools[0]["result"]["status"] == "error"


def test_a_call_stopped_before_it_was_complete_never_runs(endpoint, alice, staff_user):
    endpoint.tool_calls([("add_my_credits", {"amount": 5})], chunk_delay=0.4)
    listener = Recorder(stop_after_seconds=0.6)
    result = run_chat(agent=alice, message="给我加 5 个信用点", user=staff_user, listener=listener)

    assert result.stopped
    assert endpoint.stream_aborted.wait(2.0)
    alice.refresh_from_db()
    assert alice.credits == 100 and ToolCall.objects.count() == 0
    assert result.conversation.messages.filter(role=Message.Role.TOOL).count() == 0


CUTS = ("drop", "end", "error")  # a connection closed mid-body, a body that just ends, an error event


@pytest.mark.parametrize("cut", CUTS)
def test_a_reply_the_model_breaks_off_keeps_its_text_marked_with_the_error(endpoint, alice, staff_user, cut):
    endpoint.reply(["第一句。", "第二句。", "第三句。"], cut_after=2, cut=cut)
    listener = Recorder()
    result = run_chat(agent=alice, message="讲个故事", user=staff_user, listener=listener)

    assert listener.pieces == ["第一句。", "第二句。"]
    assert result.reply == "第一句。第二句。" and not result.stopped
    assert "模型的回答中途断了" in result.failure
    reply = result.conversation.messages.get(role=Message.Role.ASSISTANT)
    assert reply.content == "第一句。第二句。" and reply.failure == result.failure and not reply.stopped
    assert len(endpoint.requests) == 1  # not asked again: the text is already on the page


@pytest.mark.parametrize("cut", CUTS)
def test_calls_of_an_answer_that_broke_off_never_run_even_the_complete_ones(endpoint, alice, staff_user, cut):
    # "先加上。" (one piece), the first call whole (its head and three argument pieces), then the
    # second call's head and one argument piece: the answer breaks off inside the second call.
    endpoint.tool_calls([("add_my_credits", {"amount": 5}), ("add_my_credits", {"amount": 7})], "先加上。", cut_after=7, cut=cut)
    result = run_chat(agent=alice, message="给我加 5 个，再加 7 个信用点", user=staff_user, listener=Recorder())

    alice.refresh_from_db()
    assert alice.credits == 100 and ToolCall.objects.count() == 0
    assert result.reply == "先加上。" and result.failure and result.tool_calls == []
    assert result.conversation.messages.filter(role=Message.Role.TOOL).count() == 0


@pytest.mark.parametrize("cut", CUTS)
def test_an_answer_broken_off_before_any_text_is_the_usual_model_error(endpoint, alice, staff_user, cut):
    endpoint.reply(["第一句。"], cut_after=0, cut=cut)
    with pytest.raises(ApplicationError) as failed:
        run_chat(agent=alice, message="讲个故事", user=staff_user, listener=Recorder())

    assert failed.value.code == "model_error" and failed.value.extra["conversation_id"]
    assert not Message.objects.filter(role=Message.Role.ASSISTANT).exists()
    assert Message.objects.filter(role=Message.Role.USER).count() == 1  # the question stays


def test_the_rules_provider_streams_its_whole_reply_as_one_piece(settings, make_agent, staff_user):
    settings.AGENT_PROVIDER = "rules"
    agent = make_agent("Bob", tools=("get_my_status",), credits=70)
    listener = Recorder()
    result = run_chat(agent=agent, message="我的状态", user=staff_user, listener=listener)

    assert listener.pieces == [result.reply] and "70" in result.reply
    assert [t["name"] for t in listener.tools] == ["get_my_status"]


def test_an_endpoint_that_refuses_tools_is_streamed_through_the_text_protocol_in_one_piece(endpoint, alice, staff_user):
    endpoint.reject_tools()
    endpoint.reply('{"tool_calls": [{"name": "add_my_credits", "arguments": {"amount": 3}}]}').reply("加了 3 个。")
    listener = Recorder()
    result = run_chat(agent=alice, message="给我加 3 个信用点", user=staff_user, listener=listener)

    alice.refresh_from_db()
    assert alice.credits == 103 and result.reply == "加了 3 个。"
    assert listener.pieces == ["加了 3 个。"]  # the JSON of the call never reached the page as text


def test_a_tool_call_the_endpoint_cannot_stream_is_asked_again_whole_and_runs(endpoint, alice, staff_user):
    """llama-cpp-python 0.3.36 ends a streamed answer that would be a tool call before its first
    chunk (seen on the real server: a 200 with keep-alives only); that was a model error, every time."""
    endpoint.cannot_stream_tool_calls()
    endpoint.tool_calls([("add_my_credits", {"amount": 5})]).reply(["加好了", "。"])
    listener = Recorder()
    result = run_chat(agent=alice, message="给我加 5 个信用点", user=staff_user, listener=listener)

    alice.refresh_from_db()
    assert alice.credits == 105 and ToolCall.objects.count() == 1
    assert result.reply == "加好了。" and not result.failure
    assert listener.pieces == ["加好了", "。"]  # the reply after the call still streams
    assert [bool(request.get("stream")) for request in endpoint.requests] == [True, False, True]


def test_an_endpoint_that_refuses_stream_options_streams_without_them(endpoint, alice, staff_user):
    endpoint.error(400, {"error": {"message": "Unrecognized request argument: stream_options", "param": "stream_options"}})
    endpoint.reply(["好", "的"])
    result = run_chat(agent=alice, message="你好", user=staff_user, listener=Recorder())

    assert result.reply == "好的"
    assert "stream_options" in endpoint.requests[0] and "stream_options" not in endpoint.requests[1]


def test_an_unreachable_endpoint_fails_a_streamed_turn_like_any_other(settings, endpoint, alice, staff_user):
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    with pytest.raises(ApplicationError) as failed:
        run_chat(agent=alice, message="你好", user=staff_user, listener=Recorder())
    assert failed.value.code == "model_unavailable"


def test_the_api_still_answers_whole(endpoint, alice, api_client):
    endpoint.reply("你好。")
    response = api_client.post(f"/api/agents/{alice.pk}/chat/", {"message": "你好"}, format="json")
    assert response.status_code == 200 and response.json()["reply"] == "你好。"
    assert "stream" not in endpoint.requests[0]


def events(response) -> list[tuple[str, dict]]:
    """The (name, data) events of a streamed response, read whole by the test client."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sync test client reads the async stream in one go, and says so
        body = b"".join(response).decode()
    out = []
    for block in body.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in lines:
            out.append((lines["event"], json.loads(lines["data"])))
    return out


CSRF = "k" * 32
STREAM_HEADERS = {"HTTP_ACCEPT": "text/event-stream", "HTTP_HX_REQUEST": "true"}


def test_the_chat_page_streams_events_ending_with_the_panel(settings, make_agent, admin_client):
    settings.AGENT_PROVIDER = "rules"
    agent = make_agent("Bob", tools=("get_my_status",), credits=70)
    response = admin_client.post(f"/agents/{agent.pk}/chat/", {"message": "我的状态"}, **STREAM_HEADERS)

    assert response["Content-Type"].startswith("text/event-stream")
    got = events(response)
    names = [name for name, _ in got]
    assert names[0] == "began" and names[-1] == "done"
    assert "tool" in names and "text" in names
    tool_event = dict(got)["tool"]
    assert tool_event["name"] == "get_my_status" and tool_event["status"] == "success" and tool_event["line"].endswith("✓")
    conversation = agent.conversations.get()
    assert got[0][1] == {"conversation_id": conversation.pk}
    done = got[-1][1]
    assert 'id="chat-panel"' in done["html"] and "信用点 70" in done["html"]
    assert done["push_url"] == f"/agents/{agent.pk}/chat/?conversation={conversation.pk}"


def test_a_refused_message_streams_the_panel_with_the_error(settings, make_agent, admin_client):
    settings.AGENT_PROVIDER = "rules"
    agent = make_agent("Bob", tools=("get_my_status",))
    got = events(admin_client.post(f"/agents/{agent.pk}/chat/", {"message": "   "}, **STREAM_HEADERS))

    assert [name for name, _ in got] == ["done"]
    assert "消息不能为空" in got[0][1]["html"]
    assert not agent.conversations.exists()


def test_the_funds_panel_streams_and_remembers_its_conversation(settings, make_agent, admin_client):
    settings.AGENT_PROVIDER = "rules"
    agent = make_agent("Fundy", tools=("create_fund", "list_funds"))
    got = events(admin_client.post("/funds/chat/", {"agent_id": agent.pk, "message": "有哪些基金？"}, **STREAM_HEADERS))

    assert [name for name, _ in got][-1] == "done"
    conversation = agent.conversations.get()
    assert got[0][1] == {"conversation_id": conversation.pk}
    # The session saved after the stream: the next message continues the same conversation.
    events(admin_client.post("/funds/chat/", {"agent_id": agent.pk, "message": "再说一遍"}, **STREAM_HEADERS))
    assert agent.conversations.count() == 1 and conversation.messages.filter(role="user").count() == 2


@pytest.mark.parametrize(
    ("language", "badge", "reason"),
    [("zh-hans", "出错中断", "模型的回答中途断了"), ("en", "Cut off by an error", "broke off mid-answer")],
)
def test_a_broken_off_reply_ends_the_stream_with_the_panel_showing_it_cut_off(endpoint, alice, admin_client, language, badge, reason):
    endpoint.reply(["第一句。", "第二句。", "第三句。"], cut_after=2, cut="error")
    response = admin_client.post(
        f"/agents/{alice.pk}/chat/", {"message": "讲个故事"}, HTTP_ACCEPT_LANGUAGE=language, **STREAM_HEADERS,
    )

    assert response.status_code == 200
    got = events(response)
    assert [name for name, _ in got] == ["began", "text", "text", "done"]
    html = got[-1][1]["html"]
    assert "第一句。第二句。" in html and "broken-off" in html and badge in html and reason in html
    assert "errorlist" not in html  # a reply, not a failed message: the form is ready for the next one


def test_the_funds_panel_shows_a_broken_off_reply_the_same_way(endpoint, make_agent, admin_client):
    agent = make_agent("Fundy", tools=("create_fund", "list_funds"))
    endpoint.reply(["目前有", "两个基金", "……"], cut_after=2, cut="drop")
    got = events(admin_client.post("/funds/chat/", {"agent_id": agent.pk, "message": "有哪些基金？"}, **STREAM_HEADERS))

    assert got[-1][0] == "done"
    html = got[-1][1]["html"]
    assert "目前有两个基金" in html and "broken-off" in html and "出错中断" in html
    assert agent.conversations.get().messages.get(role=Message.Role.ASSISTANT).failure


def test_without_asking_for_a_stream_the_page_answers_as_before(settings, make_agent, admin_client):
    settings.AGENT_PROVIDER = "rules"
    agent = make_agent("Bob", tools=("get_my_status",), credits=70)
    response = admin_client.post(f"/agents/{agent.pk}/chat/", {"message": "我的状态"}, HTTP_HX_REQUEST="true")
    assert response["Content-Type"].startswith("text/html") and "信用点 70" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_closed_connection_stops_the_model_request_like_the_stop_button(endpoint, make_agent, django_user_model, live_server_url):
    """A closed tab: Daphne reports the disconnect, the turn stops, and the model's request is closed."""
    endpoint.reply([f"第{n}句。" for n in range(40)], chunk_delay=0.25)  # 10 s if read to the end
    agent = make_agent("Alice", tools=("get_my_status",))
    user = django_user_model.objects.create_superuser("streamer", "s@example.com", "pw")
    client = Client()
    client.force_login(user)
    session = client.cookies["sessionid"].value
    base = live_server_url  # asked for after the endpoint: the server forks with its settings
    host = urlsplit(base)

    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=10)
    body = urlencode({"message": "讲个长故事"})
    connection.request("POST", f"/agents/{agent.pk}/chat/", body=body, headers={
        "Content-Type": "application/x-www-form-urlencoded", "Accept": "text/event-stream", "HX-Request": "true",
        "Cookie": f"sessionid={session}; csrftoken={CSRF}", "X-CSRFToken": CSRF, "Origin": base,
    })
    response = connection.getresponse()
    assert response.status == 200, response.read()[:500]
    seen = b""
    while b"event: text" not in seen:
        seen += response.fp.read1(4096)
    connection.sock.shutdown(2)
    connection.close()

    assert endpoint.stream_aborted.wait(5.0)
    assert endpoint.streams_finished == 0
    deadline = time.monotonic() + 5
    while not Message.objects.filter(role=Message.Role.ASSISTANT, stopped=True).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    reply = Message.objects.get(role=Message.Role.ASSISTANT)
    assert reply.stopped and reply.content.startswith("第0句。") and "第39句" not in reply.content


def test_the_list_of_conversations_alone_says_whether_it_still_waits_for_the_reply(settings, make_agent, admin_client, admin_user):
    """What the page asks for after Stop, until the stopped reply is stored."""
    settings.AGENT_PROVIDER = "rules"
    agent = make_agent("Bob", tools=("get_my_status",))
    conversation = agent.conversations.create(user=admin_user)
    Message.objects.create(conversation=conversation, role=Message.Role.USER, content="讲个长故事")
    url = f"/agents/{agent.pk}/chat/?part=recent&conversation={conversation.pk}"

    waiting = admin_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert waiting.lstrip().startswith('<aside class="card" id="recent-conversations"') and "data-awaiting-reply" in waiting
    assert f"#{conversation.pk}" in waiting and 'id="chat-panel"' not in waiting

    Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, content="从前", stopped=True)
    assert "data-awaiting-reply" not in admin_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert admin_client.get(url.replace("recent", "nonsense"), HTTP_HX_REQUEST="true").status_code == 400
    assert "讲个长故事" in admin_client.get(url).content.decode()  # without HTMX: the whole page, as ever
