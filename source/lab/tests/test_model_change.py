# >>file 04
"""The second entry kind: a model switch is recorded through the one write path, never
becomes a message, and comes back on --continue from the path from the leaf."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from conftest import RunMain, Saved
from harness import new_chat

from commands import ModelChoice, choose_model, run_command
from entries import build_context
from loop import run_turn
from messages import Message, text_of, user_text

# >> 04 until prod
# from model import MODELS
# << 04 until prod
from model import DEFAULT_MODEL

# >> prod
from model_registry import MODELS

# << prod
from session import Session, read_session
from tools import default_tools


def answer(model_name: str, question: str) -> list[Message]:
    messages: list[Message] = []
    for _ in run_turn(MODELS[model_name], default_tools(), messages, user_text(question)):
        pass
    return messages


@pytest.mark.parametrize("question", ["what is 12*8", "hello", "what was the result", "huh"])
def test_the_two_models_word_the_same_facts_differently(question: str) -> None:
    v1, v2 = answer("scripted-v1", question), answer("scripted-v2", question)
    assert [m["role"] for m in v1] == [m["role"] for m in v2]
    assert text_of(v1[-1]) != text_of(v2[-1])
    if question == "what is 12*8":
        assert "96" in text_of(v1[-1]) and "96" in text_of(v2[-1])


def lines(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_a_switch_is_one_entry_under_the_leaf_and_no_message(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    for _ in run_turn(MODELS[chat.model], default_tools(), chat.messages, user_text("hello")):
        pass
    chat.save_new()
    result = run_command(chat, "/model scripted-v2")
    assert result.lines == ["switched to scripted-v2"] and not result.exit
    assert lines(chat.session.path)[-1] == {
        "type": "model_change",
        "id": "e3",
        "parentId": "e2",
        "model": "scripted-v2",
    }
    assert chat.session.leaf_id == "e3"
    assert (chat.model, len(chat.messages), chat.cursor) == ("scripted-v2", 2, 2)


def test_listing_an_unknown_name_and_the_active_model_write_nothing(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    chat.session.append_message(user_text("hello"))
    before = chat.session.path.read_bytes()
    assert run_command(chat, "/model").lines == [
        "* scripted-v1",
        "  scripted-v2",
        "(* answers now; /model NAME switches)",
    ]
    assert run_command(chat, "/model gpt-9").lines == [
        "unknown model gpt-9 (the models: scripted-v1, scripted-v2)"
    ]
    assert run_command(chat, "/model scripted-v1").lines == ["already using scripted-v1"]
    assert chat.session.path.read_bytes() == before and chat.model == DEFAULT_MODEL


def test_the_model_in_force_is_the_last_switch_on_the_path_not_in_the_file() -> None:
    """e4 switches to v2 on a branch the leaf is not on: the leaf's path never switched."""

    def message(entry_id: str, parent: str | None) -> dict:
        return {"type": "message", "id": entry_id, "parentId": parent, "message": user_text("x")}

    entries = {
        "e1": message("e1", None),
        "e2": {"type": "model_change", "id": "e2", "parentId": "e1", "model": "scripted-v2"},
        "e3": message("e3", "e2"),
        "e4": {"type": "model_change", "id": "e4", "parentId": "e3", "model": "scripted-v1"},
        "e5": message("e5", "e3"),  # hangs under e3, beside e4
    }
    assert build_context(entries, "e5").model == "scripted-v2"
    assert build_context(entries, "e4").model == "scripted-v1"
    assert build_context(entries, "e1").model is None  # no switch: the program's default
    assert len(build_context(entries, "e5").messages) == 3


def test_a_model_change_without_a_name_is_a_damaged_line(saved: Saved) -> None:
    with saved.path.open("ab") as file:
        file.write(b'{"type":"model_change","id":"e7","parentId":"e6","model":7}\n')
    resumed = Session.open(saved.path)
    assert resumed.skipped == 1 and resumed.context.model is None


def test_continue_restores_the_model_through_a_real_restart(run_main: RunMain) -> None:
    first = run_main("what is 12*8\n/model scripted-v2\nwhat is 2+3\n")
    assert first.returncode == 0, first.stderr
    assert "assistant> Result: 5 (from 2+3)." in first.stdout.decode()
    second = run_main("what was the result\n", "--continue")
    assert second.returncode == 0 and second.stderr == b""
    out = second.stdout.decode().splitlines()
    assert out[0].endswith("(resumed: 8 messages restored, model scripted-v2)")
    assert "assistant> Earlier result: 5 (from 2+3)." in out


def test_a_model_this_program_does_not_have_falls_back_with_a_warning(
    saved: Saved, run_main: RunMain
) -> None:
    with saved.path.open("ab") as file:
        file.write(b'{"type":"model_change","id":"e7","parentId":"e6","model":"gpt-9"}\n')
    done = run_main("what was the result\n", "--continue")
    assert done.returncode == 0
    assert (
        done.stderr.decode()
        == "warning: the session's model gpt-9 is not here; using scripted-v1\n"
    )
    assert "assistant> The last result was 96 (12*8)." in done.stdout.decode()


# >> 05
def test_the_choice_falls_back_only_from_a_model_this_program_lacks() -> None:
    def switch(model: str) -> dict:
        return {"type": "model_change", "id": "e1", "parentId": None, "model": model}

    assert choose_model(build_context({}, None)) == ModelChoice("scripted-v1", None)
    known = choose_model(build_context({"e1": switch("scripted-v2")}, "e1"))
    assert (known.used, known.fell_back) == ("scripted-v2", False)
    lacking = choose_model(build_context({"e1": switch("gpt-9")}, "e1"))
    assert (lacking.used, lacking.recorded, lacking.fell_back) == ("scripted-v1", "gpt-9", True)


def test_resume_and_branch_word_a_fallback_the_same(saved: Saved, run_main: RunMain) -> None:
    """Both say it from one ModelChoice: a warning on --continue, a note after /branch."""
    with saved.path.open("ab") as file:
        file.write(b'{"type":"model_change","id":"e7","parentId":"e6","model":"gpt-9"}\n')
    done = run_main("hello\n/branch e7\n", "--continue")  # hello: e8 e9 under e7
    assert done.returncode == 0, done.stderr
    [warning] = done.stderr.decode().splitlines()
    [note] = [line for line in done.stdout.decode().splitlines() if line.startswith("note: ")]
    assert warning.removeprefix("warning: ") == note.removeprefix("note: ")
    assert note == "note: the session's model gpt-9 is not here; using scripted-v1"


# << 05
# >> prod
def test_a_switch_with_nothing_said_is_not_a_conversation_to_continue(run_main: RunMain) -> None:
    """The switch is saved (the file records it), but --continue looks for messages."""
    assert run_main("/model scripted-v2\n").returncode == 0
    done = run_main("hello\n", "--continue")
    assert done.returncode == 0
    assert "holds no message; passed over" in done.stderr.decode()
    assert "starting a new one" in done.stdout.decode()


# << prod


def test_read_session_sees_both_kinds(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    chat.session.append_message(user_text("hello"))
    run_command(chat, "/model scripted-v2")
    assert [e["type"] for e in read_session(chat.session.path).entries] == [
        "message",
        "model_change",
    ]


def test_a_tab_parts_model_from_its_name(run_main: RunMain) -> None:
    """As for every command: any whitespace, not only a space, parts a name from its argument."""
    done = run_main("/model\tscripted-v2\n")
    assert done.returncode == 0 and b"switched to scripted-v2" in done.stdout, done.stdout


def test_choosing_the_default_after_a_fallback_is_recorded(saved: Saved, run_main: RunMain) -> None:
    """The path says gpt-9, which this program lacks: the default answers, with a warning.
    `/model scripted-v1` is then a real choice, not "already using": it is written down, so
    the next --continue neither warns again nor, in a program that has gpt-9, switches back."""
    with saved.path.open("ab") as file:
        file.write(b'{"type":"model_change","id":"e7","parentId":"e6","model":"gpt-9"}\n')
    first = run_main("/model scripted-v1\n", "--continue")
    assert b"switched to scripted-v1" in first.stdout, first.stdout
    assert lines(saved.path)[-1]["model"] == "scripted-v1"
    again = run_main("/model scripted-v1\n", "--continue")
    assert again.stderr == b""  # no fallback warning: the file says scripted-v1 now
    assert b"already using scripted-v1" in again.stdout


# >> 04 until 05
# def test_the_choice_falls_back_only_from_a_model_this_program_lacks() -> None:
#     def switch(model: str) -> dict:
#         return {"type": "model_change", "id": "e1", "parentId": None, "model": model}
#
#     assert choose_model(build_context({}, None)) == ModelChoice("scripted-v1", None)
#     known = choose_model(build_context({"e1": switch("scripted-v2")}, "e1"))
#     assert (known.used, known.fell_back) == ("scripted-v2", False)
#     lacking = choose_model(build_context({"e1": switch("gpt-9")}, "e1"))
#     assert (lacking.used, lacking.recorded, lacking.fell_back) == ("scripted-v1", "gpt-9", True)
#
#
# def test_the_last_line_counts_a_switch_as_an_entry_not_a_message(run_main: RunMain) -> None:
#     """A run that only switched wrote to the file: "0 new messages saved" alone would say it
#     wrote nothing."""
#     done = run_main("/model scripted-v2\n/exit\n")
#     assert done.returncode == 0 and done.stderr == b""
#     last = done.stdout.decode().splitlines()[-1]
#     assert last.startswith("0 new messages saved to .sessions/")
#     assert last.endswith(" (0 in all), and 1 other entry")
#
#
# << 04 until 05
# >> prod


@pytest.mark.parametrize("name", ["模型" * 30, "❤️" * 30, "m" * 100])
def test_a_model_change_label_fits_its_columns_whatever_the_name(name: str) -> None:
    """Cut by characters, 34 CJK characters took 68 columns of a /tree line, and a cut could
    fall between a heart and its variation selector."""
    from entries import summarize
    from terminal_text import fitting

    text = summarize({"type": "model_change", "id": "e1", "parentId": None, "model": name}, 34).text
    assert text.endswith("…") and fitting(text, 34) == text
    assert not text.removesuffix("…").endswith("❤")  # never half of a ❤️


# << prod
