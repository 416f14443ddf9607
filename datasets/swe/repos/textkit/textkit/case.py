"""Case conversion."""


def slugify(text):
    """Lower-case words joined by single hyphens."""
    words = text.split(" ")
    return "-".join(w.lower() for w in words)


def title_case(text):
    """Capitalise the first letter of every word."""
    return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))
