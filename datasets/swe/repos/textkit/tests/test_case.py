import unittest

from textkit.case import slugify, title_case


class SlugifyTest(unittest.TestCase):
    def test_single_spaces(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_whitespace_runs(self):
        cases = {"a  b": "a-b", " lead": "lead", "tabs\tand  more ": "tabs-and-more"}
        for text, slug in cases.items():
            with self.subTest(text=text):
                self.assertEqual(slugify(text), slug)


class TitleCaseTest(unittest.TestCase):
    def test_words(self):
        self.assertEqual(title_case("the quick fox"), "The Quick Fox")
