// The sender's brand in the header: the organization's display name beside Dojang's mark, and its
// colour as the --brand custom property (set through CSSOM, which the page's CSP allows; no inline
// style). Only a #rrggbb colour is applied.
import { $, S } from './state.js';

var HEX = /^#[0-9a-f]{6}$/i;

/** Only a logo this origin serves (/sign/brand/…): the page's CSP would refuse any other anyway. */
var LOGO_PATH = /^\/sign\/brand\/[A-Za-z0-9_-]+\/[0-9a-f]{64}\.(png|jpg)$/;

export function renderBrand() {
  var sender = S.view && S.view.sender;
  var el = $('sender-name');
  if (!el) return;
  var name = sender && sender.display_name ? String(sender.display_name) : '';
  el.textContent = name;
  el.hidden = !name;
  if (sender && sender.color && HEX.test(sender.color)) document.documentElement.style.setProperty('--brand', sender.color);
  var logo = $('sender-logo');
  if (!logo) return;
  var url = sender && typeof sender.logo_url === 'string' && LOGO_PATH.test(sender.logo_url) ? sender.logo_url : '';
  if (!url) {
    logo.hidden = true;
    return;
  }
  // The logo stands for the name (its alt text); the name comes back if the image fails to load.
  logo.alt = name;
  logo.addEventListener('error', function () {
    logo.hidden = true;
    el.hidden = !name;
  }, { once: true });
  if (logo.getAttribute('src') !== url) logo.src = url;
  logo.hidden = false;
  el.hidden = true;
}

