"""How a count reads: its word agreeing with it, its thousands separated."""

from tui.words import plural


def test_a_count_reads_with_its_word_agreeing_and_its_thousands_separated():
    assert plural(1, "file") == "1 file"
    assert plural(0, "file") == "0 files"
    assert plural(4_935, "line") == "4,935 lines"
    assert plural(2, "copy", "copies") == "2 copies"
