// The sender's brand in the header: the organization's display name beside Dojang's mark, and its
// colour as the --brand custom property (set through CSSOM, which the page's CSP allows; no inline
// style). Only a #rrggbb colour is applied.
import { $, S } from './state.js';

var HEX = /^#[0-9a-f]{6}$/i;

export function renderBrand() {
  var sender = S.view && S.view.sender;
  var el = $('sender-name');
  if (!el) return;
  var name = sender && sender.display_name ? String(sender.display_name) : '';
  el.textContent = name;
  el.hidden = !name;
  if (sender && sender.color && HEX.test(sender.color)) document.documentElement.style.setProperty('--brand', sender.color);
}

