"""What the table says to people, in their language: the displays' texts in the table
config's `display.language`, the CLI's lines in the reader's (LANGUAGE, LC_ALL, LC_MESSAGES,
LANG, as gettext reads them).

The catalogs are gettext's: controller/locale/FOLDER/LC_MESSAGES/mjtable.po, compiled to the
.mo beside it (both kept in the repository, so a fresh clone and a wheel speak every
language without a build step). Babel extracts the messages and compiles them
(docs/LANGUAGES.md); the standard library's gettext reads them. A message is English text
with ``{name}`` fields, filled after translation; messages whose words differ by the rule
set's family (MCR and Zung Jung say 荘家 where riichi says 親) are said with the context
"chinese" (``say_in("chinese", ...)``) where a Chinese rule set is played.
"""
from __future__ import annotations

import gettext
import os
import re
from functools import cache
from pathlib import Path

LANGUAGES = ("en", "ja", "zh-Hans", "zh-Hant")
DEFAULT = "en"
DOMAIN = "mjtable"
LOCALE = Path(__file__).with_name("locale")
# gettext's folder of each language (a folder name cannot be a BCP 47 tag with a hyphen)
_FOLDERS = {"ja": "ja", "zh-Hans": "zh_Hans", "zh-Hant": "zh_Hant"}


def N_(message: str) -> str:
    """Marks a message for extraction where it is defined; it is translated where it is said."""
    return message


def language_of(tag: str) -> str | None:
    """A browser's or a locale's tag as one of LANGUAGES: ja_JP.UTF-8 → ja; zh_TW, zh_HK,
    zh_MO and zh-Hant → zh-Hant; other Chinese → zh-Hans; en_GB, C and POSIX → en; else None."""
    lower = tag.split(".")[0].replace("_", "-").lower()
    if lower.startswith("ja"):
        return "ja"
    if re.match(r"zh-(hant|tw|hk|mo)", lower):
        return "zh-Hant"
    if lower.startswith("zh"):
        return "zh-Hans"
    if lower.startswith("en") or lower in ("c", "posix"):
        return "en"
    return None


class Words:
    """One language's messages."""

    def __init__(self, language: str = DEFAULT) -> None:
        self.language = language
        folder = _FOLDERS.get(language)
        self._catalog = (gettext.translation(DOMAIN, LOCALE, languages=[folder]) if folder
                         else gettext.NullTranslations())

    def say(self, message: str, **fields) -> str:
        return self._catalog.gettext(message).format(**fields)

    def say_in(self, context: str, message: str, **fields) -> str:
        """The message as the context words it, else as it is worded without one."""
        text = self._catalog.pgettext(context, message)
        return (self._catalog.gettext(message) if text == message else text).format(**fields)


ENGLISH = Words()  # the default of every text made for a display, and the logs' words


@cache
def words(language: str = DEFAULT) -> Words:
    return Words(language)


def reader_language(environ=os.environ) -> str:
    """The CLI reader's language, from the variables gettext reads (the first set one; LANGUAGE
    may list several, separated by colons), else English."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        tags = [tag for tag in environ.get(variable, "").split(":") if tag]
        if tags:
            return next((lang for lang in map(language_of, tags) if lang), DEFAULT)
    return DEFAULT


def reader_words() -> Words:
    """The words of the CLI's lines to people."""
    return words(reader_language())
