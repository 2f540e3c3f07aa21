/*
 * API refusals worded in the editor's own language: the server's error code (and the param it
 * names) mapped to the page's catalogue, never its English message shown raw — the user of an HR
 * app reads Korean, and the message is written for the integrator's developer. As the signing
 * page does (signing-page/errors.js).
 */
import { EditorApiError } from './api.js';
import { STRINGS, t } from './i18n.js';
import { S } from './model.js';

/** The setting a param names (fields[3].min_checked → min_checked), or null for the field itself. @param {string | null} param */
const settingOf = (param) => /^fields\[\d+\]\.([a-z_]+)/.exec(param ?? '')?.[1] ?? null;

/** A role or participant a param names (roles[1].role, participants[0]), by its name in the editor. @param {string | null} param */
function whoOf(param) {
  const session = S.session;
  const role = /^roles\[(\d+)\]/.exec(param ?? '');
  if (role && session?.roles) return session.roles[Number(role[1])]?.role ?? null;
  const participant = /^participants\[(\d+)\]/.exec(param ?? '');
  if (participant && session?.participants) return session.participants[Number(participant[1])]?.name ?? null;
  return null;
}

/** Settings whose wrong value is about where the field sits: one message for all of them. */
const BOX = ['x', 'y', 'width', 'height'];

/** The API's setting → its label in the settings panel, so the message names what the user sees. */
/** @type {Record<string, string>} */
const SETTING_LABEL = {
  label: 'label',
  options: 'options',
  group: 'group',
  option: 'option',
  max_checked: 'maxChecked',
  number_format: 'numberFormat',
  min: 'min',
  max: 'max',
  decimals: 'decimals',
  locale: 'dateFormat',
  max_length: 'maxLength',
  pattern: 'pattern',
  pattern_message: 'patternMessage',
};

/**
 * The refusal in the page's language. `err` is what a call threw: an EditorApiError (the API's
 * code and param), or anything else (the network failed, or a bug) worded as a failed connection.
 * @param {unknown} err
 * @returns {string}
 */
export function localizedError(err) {
  if (!(err instanceof EditorApiError)) return t('err_network');
  const setting = settingOf(err.param);
  switch (err.code) {
    case 'invalid_parameter':
    case 'missing_parameter':
      if (setting && BOX.includes(setting)) return t('err_field_box');
      if (setting === 'page') return t('err_field_page_out_of_range');
      if (setting === 'min_checked') return t('err_min_checked');
      if (setting === 'participant_id' || setting === 'role') return t('err_field_assignee');
      if (setting && SETTING_LABEL[setting]) return t('err_setting', { name: t(SETTING_LABEL[setting]) });
      return t('err_generic');
    case 'signer_without_required_field': {
      const who = whoOf(err.param);
      return who ? t('err_signer_without_required_field', { who }) : t('err_signer_without_required_field_plain');
    }
    default:
      if (STRINGS.ko[`err_${err.code}`]) return t(`err_${err.code}`);
      if (err.status === 429) return t('err_rate_limited');
      if (err.status === 503) return t('err_service_unavailable');
      return t('err_generic');
  }
}
