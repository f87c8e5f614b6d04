"""The page in the reader's language: the browser's languages choose it (Traditional Chinese
for zh-TW), the switch in the header changes it and the page keeps the choice; the rule
set's own terms (Zung Jung's 荒庄 and 点和 beside riichi's 流局 and 荣和)."""
from __future__ import annotations

import pytest
from selenium.webdriver.support.ui import Select

from .browser_harness import Page
from .test_browser_operator import jammed_table  # noqa: F401 (a fixture)


def prefer(browser, languages: str) -> None:
    """The browser's language preferences (navigator.languages) as a user sets them."""
    agent = browser.execute_script("return navigator.userAgent")
    browser.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": languages})


@pytest.fixture
def reader(browser):
    """The browser, its language preferences and the page's kept choice undone after."""
    yield browser
    browser.execute_script("localStorage.clear()")
    prefer(browser, "en-US")


def nav(page: Page) -> list[str]:
    return [a.text for a in page.all("nav a")]


def test_the_browser_language_chooses_and_the_switch_changes_and_is_kept(reader, web_table):
    web_table.ok("start", where="--config")
    web_table.wait_hand_after(0)
    prefer(reader, "zh-TW,zh;q=0.9,en;q=0.8")
    page = Page(reader, web_table.url).open("table")
    assert reader.execute_script("return document.documentElement.lang") == "zh-Hant"
    assert nav(page) == ["牌桌", "結果", "記錄", "管理"]
    assert page.find("#language").get_attribute("value") == "zh-Hant"

    Select(page.find("#language")).select_by_value("ja")
    page.wait(lambda: reader.execute_script("return document.documentElement.lang") == "ja", "the page in Japanese")
    page.wait(lambda: nav(page) == ["卓", "結果", "記録", "操作"], "the Japanese tabs")
    page.wait_text("#last, #walls", "東1局")
    page.log_in_player(web_table.operator_session()["pin"])
    page.wait_text("#entry h2", "東1局")
    assert [b.text for b in page.all("button.kind")] == ["ロン", "ツモ", "流局", "チョンボ"]  # EMA has no abortive draw

    page.open("table")  # the choice is kept over the browser's
    assert reader.execute_script("return document.documentElement.lang") == "ja"
    assert page.text("nav a") == "卓"
    assert page.console_errors() == []


def test_a_chinese_rule_set_is_worded_in_its_own_terms(reader, web_table):
    web_table.ok("start", "--ruleset", "zung-jung", where="--config")
    web_table.wait_hand_after(0)
    prefer(reader, "zh-CN")
    page = Page(reader, web_table.url).open("result")
    page.log_in_player(web_table.operator_session()["pin"])
    page.wait_text("#entry h2", "东1局")
    kinds = [b.text for b in page.all("button.kind")]
    assert "荒庄" in kinds and "点和" in kinds and "流局" not in kinds, kinds
    assert page.console_errors() == []


def test_a_fault_is_said_in_the_reader_s_words_beside_the_controller_s_english(reader, jammed_table):
    """A Japanese operator reads what happened and what to do in Japanese; the controller's
    own English text (which names the sensor) stays beside it, smaller. An English reader
    has the English alone (test_browser_operator.py)."""
    jammed_table.ok("start", where="--config")
    prefer(reader, "ja")
    page = Page(reader, jammed_table.url).open("operator")
    page.log_in_operator()
    page.wait(lambda: page.all("#operator-view .fault .code"), "the fault")
    said = page.text("#operator-view .fault")
    assert "牌が詰まりました。詰まった牌を取り除き、席のOKボタンを押してください。" in said
    assert page.text("#operator-view .fault .detail").startswith("jam at stacker")
    page.tab("table")
    page.wait_text("#fault", "牌が詰まりました")
    assert page.text("#fault").startswith("故障で停止:")
    assert "stacker" in page.text("#fault .detail")
    assert page.console_errors() == []
