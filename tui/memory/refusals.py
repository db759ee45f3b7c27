"""The one error every store write raises when it does not happen."""


class WriteRefused(Exception):
    """A change that was not made; the message is one sentence for the user."""
