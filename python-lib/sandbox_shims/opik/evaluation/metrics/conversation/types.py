"""``opik.evaluation.metrics.conversation.types`` stand-in: the conversation types of Opik's metrics.

As in comet-ml/opik: a conversation is a list of ``{"role": "user" | "assistant", "content": str}``
dicts, oldest first. ``ConversationTurn`` is a plain class here (Opik's is a pydantic model, and
pydantic is not in the sandbox): ``ConversationTurn(input=..., output=...)`` and ``as_list()``.
"""

from __future__ import annotations

from typing import Dict, List, Literal, Optional

ConversationDict = Dict[Literal["role", "content"], str]
Conversation = List[ConversationDict]


class ConversationTurn:
    """One turn of a conversation: the user's message and the assistant's reply (or None).

    Args:
        input: the user's message, ``{"role": "user", "content": ...}``.
        output: the reply, or None when the turn has none.
    """

    def __init__(self, input: ConversationDict, output: Optional[ConversationDict] = None) -> None:  # noqa: A002 (Opik's names)
        self.input = input
        self.output = output

    def as_list(self) -> List[ConversationDict]:
        """The turn's messages in order: ``[input]`` or ``[input, output]``."""
        return [self.input] if self.output is None else [self.input, self.output]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConversationTurn) and (self.input, self.output) == (other.input, other.output)

    def __repr__(self) -> str:
        return f"ConversationTurn(input={self.input!r}, output={self.output!r})"


__all__ = ["ConversationDict", "Conversation", "ConversationTurn"]
