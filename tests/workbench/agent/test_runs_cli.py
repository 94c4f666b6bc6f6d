"""`kernelcraft run | runs | show | replay | export`, in process."""
import json

import pytest

from kernelcraft.workbench.cli import build_parser, main

COMMANDS = ("run", "runs", "show", "replay", "export")


def test_every_run_command_has_help():
    sub = next(a for a in build_parser()._actions if a.dest == "cmd")
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name in COMMANDS:
        assert helps[name]
        for action in sub.choices[name]._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    db = tmp_path_factory.mktemp("cli") / "traces.db"
    code = main(["run", "--accel", "plena", "--task", "relu", "--config", "C2",
                 "--traces", str(db), "--quiet"])
    return db, code


def test_run_prints_the_scores_and_exits_0(recorded, capsys):
    db, code = recorded
    assert code == 0 and db.exists()


def test_runs_lists_and_filters(recorded, capsys):
    db, _ = recorded
    assert main(["runs", "--traces", str(db), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["task"], row["config"], row["agent"], row["status"]) == ("relu", "C2", "autotune",
                                                                         "succeeded")
    assert main(["runs", "--traces", str(db), "--status", "failed", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["runs", "--traces", str(db), "--task", "relu"]) == 0
    assert "relu" in capsys.readouterr().out


def test_show_is_a_readable_transcript(recorded, capsys):
    db, _ = recorded
    assert main(["show", "1", "--traces", str(db), "--verify"]) == 0
    out = capsys.readouterr().out
    for part in ("# Run 1: plena / relu / C2 -- autotune", "## Prompt", "## Step 1",
                 "**-> write_code**", "```asm", "**<- run_eval**", "## Final scoring",
                 "held-out seeds: PASS", "hash chain: intact"):
        assert part in out, part


def test_export_jsonl_and_markdown(recorded, tmp_path, capsys):
    db, _ = recorded
    out = tmp_path / "run.jsonl"
    assert main(["export", "1", "--traces", str(db), "--format", "jsonl", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0]["record"] == "run" and records[0]["status"] == "succeeded"
    assert {r["record"] for r in records} == {"run", "kernel", "event"}
    assert main(["export", "1", "--traces", str(db), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("# Run 1") and "... (" not in md      # full: nothing shortened


def test_replay_command(recorded, capsys):
    db, _ = recorded
    assert main(["replay", "1", "--traces", str(db)]) == 0
    assert "all identical to the recording" in capsys.readouterr().out


def test_errors_are_clear(recorded, tmp_path, capsys):
    db, _ = recorded
    assert main(["show", "99", "--traces", str(db)]) == 2
    assert "no run 99" in capsys.readouterr().err
    assert main(["runs", "--traces", str(tmp_path / "none.db")]) == 0
    assert "no trace store" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="either --agent or --model"):
        main(["run", "--accel", "plena", "--task", "relu", "--config", "C1", "--agent",
              "autotune", "--model", "openai/x", "--traces", str(db)])
    assert main(["run", "--accel", "plena", "--task", "relu", "--config", "H1",
                 "--traces", str(db), "--quiet"]) == 2
    assert "held-out configuration" in capsys.readouterr().err


def test_run_with_a_model_but_no_key_records_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    db = tmp_path / "t.db"
    assert main(["run", "--accel", "plena", "--task", "relu", "--config", "C1",
                 "--model", "openai/gpt-5.2", "--traces", str(db)]) == 2
    assert "set OPENAI_API_KEY" in capsys.readouterr().err and not db.exists()
