// contract/languages.ts's languageOf is the one reading of a language tag: the servers' (null when not
// spoken) and the element's (English then, widget/strings.ts), which once disagreed on a padded tag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { languageOf } from '../../contract/languages.js';
import { languageOf as elementLanguage } from '../../widget/strings.js';

test('a tag names the same language for the servers and for the element, padded or not', () => {
  for (const [tag, language] of [
    [' id', 'id'], ['id ', 'id'], ['in-ID', 'id'], ['TH_th', 'th'], ['zh-Hans-CN', 'zh-CN'], ['zh-SG', 'zh-CN'], ['vi', 'vi'],
  ] as const) {
    assert.equal(languageOf(tag), language, `languageOf(${JSON.stringify(tag)})`);
    assert.equal(elementLanguage(tag), language, `the element's languageOf(${JSON.stringify(tag)})`);
  }
});

test('a tag the checkout does not speak is null for the servers and English for the element', () => {
  for (const tag of ['', ' ', 'fr-FR', 'zh-TW', 'zh-Hant', 'constructor', null, undefined]) {
    assert.equal(languageOf(tag), null, `languageOf(${JSON.stringify(tag)})`);
    assert.equal(elementLanguage(tag ?? undefined), 'en', `the element's languageOf(${JSON.stringify(tag)})`);
  }
});
