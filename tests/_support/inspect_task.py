"""A small Inspect AI task run offline with its ``mockllm/model``: real logs for the Inspect importer's tests.

Two samples, two epochs. The mock model answers from a script keyed on the sample's question
and on how many replies it has given so far, so each sample's transcript holds the same
turns however Inspect schedules the samples: reasoning, two tool calls in one turn, a tool
that fails, and a final answer; then a scorer asks the same model to grade the answer.

``python -m tests._support.inspect_task DIR`` writes the committed fixture log
(``tests/fixtures/inspect/arith.eval``) into ``DIR/eval`` (``DIR eval json`` writes both kinds).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

QUESTIONS = {"sum3": "What is 1 + 2 + 3?", "double": "What is 2 + 2?"}
"""The samples: id -> question."""

ANSWERS = {"sum3": "6", "double": "4"}
"""The samples: id -> the answer the scorer looks for."""

SYSTEM = "You add numbers with the add tool."


def _script(sample: str, reply: int) -> Any:
    """The mock model's reply number ``reply`` (0-based) in the sample asking ``QUESTIONS[sample]``."""
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        ContentReasoning,
        ContentText,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.tool import ToolCall

    def call(n: int, x: int, y: int) -> ToolCall:
        return ToolCall(id=f"call_{sample}_{reply}_{n}", function="add", arguments={"x": x, "y": y})

    if sample == "sum3":
        turns: list[tuple[Any, list[ToolCall]]] = [
            (
                [
                    ContentReasoning(reasoning="Add 1 + 2 and 2 + 3 at once.", signature="sig-1"),
                    ContentText(text="Adding."),
                ],
                [call(0, 1, 2), call(1, 2, 3)],
            ),
            ("", [call(0, -1, 2)]),
            ("The answer is 6.", []),
        ]
    else:
        turns = [("", [call(0, 2, 2)]), ("The answer is 4.", [])]
    content, calls = turns[min(reply, len(turns) - 1)]
    message = ChatMessageAssistant(content=content, tool_calls=calls or None, model="mockllm/model")
    choice = ChatCompletionChoice(message=message, stop_reason="tool_calls" if calls else "stop")
    # Usage given here keeps mockllm from counting tokens with tiktoken, which downloads its encodings.
    usage = ModelUsage(input_tokens=100 * (reply + 1), output_tokens=20, total_tokens=100 * (reply + 1) + 20)
    return ModelOutput(model="mockllm/model", choices=[choice], usage=usage)


def _grade() -> Any:
    """The grader's verdict: correct."""
    from inspect_ai.model import ModelOutput, ModelUsage

    output = ModelOutput.from_content("mockllm/model", "GRADE: C")
    output.usage = ModelUsage(input_tokens=50, output_tokens=5, total_tokens=55)
    return output


def run_task(log_dir: Path, log_format: str = "eval") -> Path:
    """Run the task offline and return the path of the log Inspect wrote in ``log_dir``."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import includes, model_graded_fact
    from inspect_ai.solver import generate, system_message, use_tools
    from inspect_ai.tool import ToolError, tool

    @tool
    def add() -> Any:
        async def execute(x: int, y: int) -> int:
            """Add two numbers.

            Args:
                x: First number to add.
                y: Second number to add.

            Returns:
                The sum of the two numbers.
            """
            if x < 0:
                raise ToolError("negative numbers are not supported")
            return x + y

        return execute

    by_question = {question: sample for sample, question in QUESTIONS.items()}

    def outputs(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> Any:
        question = next(message.text for message in input if message.role == "user")
        if question not in by_question:  # the grader of model_graded_fact, asking about an answer
            return _grade()
        return _script(by_question[question], sum(1 for message in input if message.role == "assistant"))

    task = Task(
        name="arith",
        dataset=[Sample(id=sample, input=question, target=ANSWERS[sample]) for sample, question in QUESTIONS.items()],
        solver=[system_message(SYSTEM), use_tools(add()), generate()],
        scorer=[includes(), model_graded_fact()],
        epochs=2,
    )
    model = get_model("mockllm/model", custom_outputs=outputs)
    (log,) = eval(task, model=model, log_dir=str(log_dir), log_format=log_format, display="none")
    if log.status != "success":
        raise RuntimeError(f"the Inspect task did not succeed: {log.status} {log.error}")
    return Path(log.location)


def run_task_apart(log_dir: Path, *log_formats: str) -> list[Path]:
    """``run_task`` once per log format, in a process of its own: Inspect's warnings, event loop and logging
    stay out of the tests' (and it is imported once)."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "tests._support.inspect_task", str(log_dir), *log_formats],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the Inspect task failed:\n{done.stderr}")
    return [Path(line) for line in done.stdout.strip().splitlines()[-len(log_formats) :]]


if __name__ == "__main__":
    for log_format in sys.argv[2:] or ["eval"]:
        print(run_task(Path(sys.argv[1]) / log_format, log_format))
