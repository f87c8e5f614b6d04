// The page's words in the reader's language: plain JSON catalogs (i18n/LANG.json, one key
// per text), chosen by the switch on the page (kept in localStorage), else by the browser's
// languages, else English. docs/LANGUAGES.md says how to add a language.
export const LANGUAGES = { en: "English", ja: "日本語", "zh-Hans": "简体中文", "zh-Hant": "繁體中文" };
const KEPT = "mjtable-language";

// A browser's tag to ours: zh-TW, zh-HK and zh-MO read Traditional Chinese, other zh Simplified.
export function languageOf(tag) {
  const lower = tag.toLowerCase();
  if (lower.startsWith("ja")) return "ja";
  if (/^zh-(hant|tw|hk|mo)/.test(lower)) return "zh-Hant";
  if (lower.startsWith("zh")) return "zh-Hans";
  if (lower.startsWith("en")) return "en";
  return null;
}

function chosen() {
  const kept = localStorage.getItem(KEPT);
  if (kept in LANGUAGES) return kept;
  return (navigator.languages ?? [navigator.language]).map(languageOf).find(Boolean) ?? "en";
}

export const language = chosen();
// A catalog that cannot be read leaves the page in English rather than without words.
const read = (lang) => fetch(`i18n/${lang}.json`).then((r) => (r.ok ? r.json() : Promise.reject(new Error(r.statusText))));
const words = await read(language).catch(() => read("en")).catch(() => ({}));
let family = "riichi";

// The rule set's family names some things its own way (MCR's 荒牌 where riichi says 流局):
// a catalog's "key@chinese" wins over "key" while a Chinese rule set is played.
export function setScheme(scheme) {
  family = scheme && scheme !== "riichi" ? "chinese" : "riichi";
}

// The text of `key`, its {name}s filled from `params`.
export function t(key, params = {}) {
  const text = words[`${key}@${family}`] ?? words[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? String(params[name]) : all));
}

export function choose(lang) {
  localStorage.setItem(KEPT, lang);
  location.reload();
}

// The page's fixed texts: data-i18n="key" gives an element its text.
export function translatePage(root = document) {
  document.documentElement.lang = language;
  for (const e of root.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
}
