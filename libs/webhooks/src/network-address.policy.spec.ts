import { isPrivateAddress, validateWebhookUrl } from '@dojang/webhooks';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '169.254.0.1', '0.0.0.0', '0.1.2.3', '100.64.0.1', '100.127.255.255',
    '224.0.0.1', '239.255.255.250', '255.255.255.255', '198.18.0.1', '198.19.255.254', '240.0.0.1',
    // special-purpose and documentation ranges: one address of each
    '192.0.0.8', '192.0.2.1', '192.88.99.1', '198.51.100.7', '203.0.113.9', '::ffff:203.0.113.9',
    '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0:10.1.2.3',
    '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '[::1]',
    '0:0:0:0:0:0:0:1', 'not-an-ip', '', '1.2.3', '256.1.1.1',
  ])('refuses %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.169.0.1',
    '169.255.0.1', '192.0.1.1', '192.0.3.1', '192.88.98.1', '192.88.100.1', '198.51.99.1', '198.51.101.1',
    '203.0.112.1', '203.0.114.1', '198.20.0.1', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808',
  ])('allows public %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe('validateWebhookUrl', () => {
  it('accepts public http and https URLs', () => {
    expect(validateWebhookUrl('https://hooks.example.com/dojang?x=1')).toBeNull();
    expect(validateWebhookUrl('http://93.184.216.34:8080/hook')).toBeNull();
  });

  it.each([
    ['ftp://example.com/', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:pw@example.com/', /credentials/],
    ['not a url', /valid/],
    ['', /required/],
    ['https://' + 'a'.repeat(2100) + '.com/', /at most/],
  ])('rejects %s', (url, message) => {
    expect(validateWebhookUrl(url)).toMatch(message);
    expect(validateWebhookUrl(url, { allowPrivateNetworks: true })).toMatch(message);
  });

  it.each([
    'http://127.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/',
    'http://2130706433/', 'http://0x7f.0.0.1/', 'http://[::ffff:127.0.0.1]/', 'http://localhost:3000/',
    'http://api.localhost/', 'http://metadata.google.internal/', 'http://printer.local/', 'http://intranet/',
  ])('rejects private target %s unless private networks are allowed', (url) => {
    expect(validateWebhookUrl(url)).not.toBeNull();
    expect(validateWebhookUrl(url, { allowPrivateNetworks: true })).toBeNull();
  });
});
