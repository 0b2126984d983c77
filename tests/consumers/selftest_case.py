"""One line per self-test case of the doc and tree checkers (check_*.py)."""


def report(title, ok, errors):
    """Prints whether the case came out as expected and its violations;
    returns 1 when it did not, so a self-test can add up its failures."""
    print("%s: %s (%d violation%s)" % ("ok" if ok else "WRONG", title, len(errors),
                                       "" if len(errors) == 1 else "s"))
    for e in errors:
        print("    " + e)
    return 0 if ok else 1
