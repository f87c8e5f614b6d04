"""Every language has every message: the page's JSON catalogs against the keys its scripts
use, the gettext catalogs against the messages the sources say (extracted as `make catalogs`
extracts them), each translation with the fields of its English, and the compiled .mo the
same as its .po. A key or message added without its translations fails here."""
from __future__ import annotations

import gettext
import io
import json
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from controller.game.machine import GAME_STATES, MOTION_STATES
from controller.language import LANGUAGES, LOCALE, language_of, reader_language, words

REPO = Path(__file__).resolve().parents[1]
FIELD = re.compile(r"\{(\w+)[^}]*\}")  # {name} or {name:>7}
# a key as the scripts write it ("entry.confirm", data-i18n="tab.table"), and a family looked
# up by a made key (t(`state.${...}`))
QUOTED_KEY = re.compile(r'"([a-z]\w*(?:\.\w+)+)"')
FILE_NAMES = (".js", ".css", ".json", ".html")  # "session.js" names a file, not the key family "session"
MADE_KEY = re.compile(r"t\(`([\w.]+)\.\$\{")
# Every member of each family a made key names (the page's own lists, the machine's states).
FAMILIES = {
    "state": [*GAME_STATES, *MOTION_STATES[1:], "reconnecting"],
    "role": ["spectator", "player", "operator"],
    "game": ["active", "finished", "abandoned"],
    "kind": ["ron", "tsumo", "draw", "abortive", "chombo"],
    "operator": ["retry", "pause", "resume", "abandon"],
    "target": ["hand", "win", "chi", "pon", "kan", "added_kan", "closed_kan", "dora", "ura"],
    "flag": ["ippatsu", "double_riichi", "haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou"],
    "meld": ["chi", "pon", "kan", "added_kan", "closed_kan"],
    "tile": [f"{n}z" for n in range(1, 8)],
    # the faults said in the reader's words (words.js faultSaid): those an operator sees to at the table
    "fault": ["102", "109", "200", "201", "202", "203", "204", "206", "303", "304", "305"],
}
FOLDERS = {"ja": "ja", "zh-Hans": "zh_Hans", "zh-Hant": "zh_Hant"}
PAGES = {"page": REPO / "controller/api/web/static", "floor": REPO / "controller/api/floor/static"}


def catalog(static: Path, language: str) -> dict[str, str]:
    return json.loads((static / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


def used_keys(static: Path, english: dict[str, str]) -> tuple[set[str], set[str]]:
    """The keys a page's scripts and HTML name (each quoted string of a catalog's key's shape
    and family), and the families they make keys of."""
    known = {key.split(".")[0] for key in english}
    literal, made = set(), set()
    for path in [*static.glob("*.js"), *static.glob("*.html")]:
        text = path.read_text(encoding="utf-8")
        literal |= {key for key in QUOTED_KEY.findall(text)
                    if key.split(".")[0] in known and not key.endswith(FILE_NAMES)}
        made |= set(MADE_KEY.findall(text))
    return literal, made


def fields(text: str) -> set[str]:
    return set(FIELD.findall(text))


@pytest.mark.parametrize("page", PAGES)
def test_every_key_a_page_uses_is_in_its_english_catalog(page):
    static = PAGES[page]
    english = catalog(static, "en")
    literal, made = used_keys(static, english)
    assert len(literal) > 20, "few keys found: the pattern no longer matches the scripts"
    assert sorted(literal - english.keys()) == []
    for family in made:
        assert family in FAMILIES, f"a key made from {family!r}: list its members in FAMILIES"
        assert sorted(k for k in (f"{family}.{m}" for m in FAMILIES[family]) if k not in english) == []


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_page_catalog_has_every_english_key_with_its_fields(page, language):
    static = PAGES[page]
    english, other = catalog(static, "en"), catalog(static, language)
    assert sorted(english.keys() - other.keys()) == [], f"missing from {language}.json"
    for key, text in other.items():
        base = key.split("@")[0]  # "key@chinese": the Chinese rule sets' own wording of "key"
        assert base in english, f"{language}.json: {key} is no key of en.json"
        # a rule set's own wording may leave a field out (MCR has no riichi sticks), never add one
        assert fields(text) <= fields(english[base]) if "@" in key else fields(text) == fields(english[key]), key


def said_messages() -> set[tuple[str | None, str]]:
    """(context, message) of every message the sources say, as `make catalogs` extracts them."""
    method_map, options_map = parse_mapping_cfg(io.StringIO((LOCALE / "babel.cfg").read_text()))
    return {(context, message) for _, _, message, _, context in extract_from_dir(REPO, method_map, options_map)}


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_message_said_is_translated_with_its_fields(language):
    with (LOCALE / FOLDERS[language] / "LC_MESSAGES" / "mjtable.po").open("rb") as f:
        po = read_po(f)
    translated = {(m.context, m.id): m.string for m in po if m.id and m.string and not m.fuzzy}
    said = said_messages()
    assert len(said) > 30
    assert sorted(said - translated.keys(), key=str) == [], f"untranslated in {language}"
    for (context, message), text in translated.items():
        if (context, message) in said:
            assert fields(text) <= fields(message) if context else fields(text) == fields(message), message


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_each_compiled_catalog_is_its_po(language):
    """The .mo the product reads says what the .po says (`make catalogs` compiles it)."""
    folder = LOCALE / FOLDERS[language] / "LC_MESSAGES"
    with (folder / "mjtable.po").open("rb") as f:
        compiled = io.BytesIO()
        write_mo(compiled, read_po(f))
    compiled.seek(0)
    with (folder / "mjtable.mo").open("rb") as f:
        assert gettext.GNUTranslations(f)._catalog == gettext.GNUTranslations(compiled)._catalog


def test_a_translation_is_said_with_its_fields_filled():
    assert words("ja").say("seat {seat} throws", seat=2) == "2番席がサイコロを振る"
    assert words("en").say("seat {seat} throws", seat=2) == "seat 2 throws"
    # a Chinese rule set's own terms, else the message as the language words it without one
    assert words("zh-Hans").say_in("chinese", "{hand} dealer {dealer} honba {honba} sticks {sticks}",
                                   hand="东1局", dealer=0, honba=0, sticks=0) == "东1局 庄家0号"
    assert words("ja").say_in("chinese", "web PIN {pin}", pin="1234") == "ウェブ PIN 1234"


@pytest.mark.parametrize(("tag", "language"), [
    ("ja_JP.UTF-8", "ja"), ("zh_TW.UTF-8", "zh-Hant"), ("zh-HK", "zh-Hant"), ("zh-Hant-SG", "zh-Hant"),
    ("zh_CN.UTF-8", "zh-Hans"), ("zh-SG", "zh-Hans"), ("en_GB.UTF-8", "en"), ("C.UTF-8", "en"), ("ko_KR", None),
])
def test_a_locale_or_browser_tag_reads_as_one_of_the_languages(tag, language):
    assert language_of(tag) == language


def test_the_reader_language_is_the_first_variable_set_as_gettext_reads_them():
    assert reader_language({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert reader_language({"LANGUAGE": "ko:zh_TW", "LANG": "ja_JP.UTF-8"}) == "zh-Hant"
    assert reader_language({"LC_ALL": "C", "LANG": "ja_JP.UTF-8"}) == "en"
    assert reader_language({"LANG": "ko_KR.UTF-8"}) == "en"
    assert reader_language({}) == "en"
