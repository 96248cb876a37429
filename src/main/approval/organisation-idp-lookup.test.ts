/**
 * The organisation's identity providers for cross-app access (docs/user/organisation-policy.md#oauth): the policy
 * file's `oauth.crossAppAccess` as read, which servers each entry names, and how it lies over the person's own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerFacts } from '../../shared/server-identity';
import { effectiveCrossAppAccess } from '../mcp/oauth/organisation-idp';
import { httpIdentity, serverIdentity } from '../mcp/server-identity';
import { loadManagedPolicy } from './managed-policy';
import { organisationIdpLookup } from './organisation-idp-lookup';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function load(policy: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-org-idp-'));
  dirs.push(dir);
  const file = path.join(dir, 'managed-policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  return loadManagedPolicy(file);
}

const IDP = { idpIssuer: 'https://login.example.com', idpClientId: 'wb-at-idp' };
const http = (url: string, formerNames: string[] = []): ServerFacts => ({ identity: httpIdentity(url), formerNames });

describe("the policy file's oauth.crossAppAccess", () => {
  it('reads an entry by name or by identity; locked is false unless given; the secret is kept as given', () => {
    const loaded = load({
      oauth: {
        crossAppAccess: [
          { server: 'CRM', ...IDP, idpClientSecret: 's3cret', locked: true },
          {
            serverIdentity: { url: 'https://*.corp.example/**' },
            ...IDP,
            idpTokenEndpoint: 'https://login.example.com/t',
          },
        ],
      },
    });
    expect(loaded?.policy.oauth?.crossAppAccess).toEqual([
      { server: 'CRM', ...IDP, idpClientSecret: 's3cret', locked: true },
      {
        serverIdentity: { url: 'https://*.corp.example/**' },
        ...IDP,
        idpTokenEndpoint: 'https://login.example.com/t',
        locked: false,
      },
    ]);
  });

  it.each([
    [{ ...IDP }, 'oauth.crossAppAccess.0: name the servers it is for'],
    [{ server: 'CRM', idpClientId: 'x' }, 'oauth.crossAppAccess.0.idpIssuer'],
    [{ server: 'CRM', ...IDP, idpIssuer: 'ftp://login.example.com' }, 'oauth.crossAppAccess.0.idpIssuer'],
    [{ server: 'CRM', ...IDP, clientSecret: 'x' }, 'Unrecognized key'],
    [{ server: 'CRM', ...IDP, locked: 'yes' }, 'oauth.crossAppAccess.0.locked'],
    [{ server: '[', ...IDP }, 'oauth.crossAppAccess.0.server: is not a valid glob'],
    [{ serverIdentity: { url: '' }, ...IDP }, 'oauth.crossAppAccess.0.serverIdentity.url'],
  ])('refuses a bad entry, naming the field: %j', (entry, words) => {
    expect(() => load({ oauth: { crossAppAccess: [entry] } })).toThrow(words);
  });
});

describe('which servers an entry names', () => {
  const lookup = organisationIdpLookup(
    load({
      oauth: {
        crossAppAccess: [
          { server: 'CRM', ...IDP, locked: true },
          {
            serverIdentity: { url: 'https://*.corp.example/**' },
            idpIssuer: 'https://idp.corp.example',
            idpClientId: 'c',
          },
          { server: 'Both', serverIdentity: { url: 'https://both.example/**' }, ...IDP, idpClientSecret: 'x' },
        ],
      },
    })?.policy.oauth?.crossAppAccess ?? [],
  );

  it('by a name it has or had (a rename does not escape it), and the same server under another name', () => {
    const facts = new Map([
      ['CRM', http('https://crm.example/mcp')],
      ['Sales', http('https://sales.example/mcp', ['CRM'])],
      ['Twin', http('https://crm.example/mcp')],
      ['Other', http('https://other.example/mcp')],
    ]);
    expect(lookup('CRM', facts)).toEqual({ crossAppAccess: IDP, locked: true });
    expect(lookup('Sales', facts)).toEqual({ crossAppAccess: IDP, locked: true });
    expect(lookup('Twin', facts)).toEqual({ crossAppAccess: IDP, locked: true });
    expect(lookup('Other', facts)).toBeUndefined();
  });

  it('by what it is reached at, whatever it is called; every part given must match; stdio servers never', () => {
    const facts = new Map<string, ServerFacts>([
      ['Wiki', http('https://wiki.corp.example/mcp')],
      ['Both', http('https://both.example/mcp')],
      ['NotBoth', http('https://both.example/mcp')],
      ['Elsewhere', http('https://corp.example.evil/mcp')],
      ['CRM', { identity: serverIdentity({ command: 'crm-server' }), formerNames: [] }],
    ]);
    expect(lookup('Wiki', facts)).toEqual({
      crossAppAccess: { idpIssuer: 'https://idp.corp.example', idpClientId: 'c' },
      locked: false,
    });
    // NotBoth runs what Both runs, so it shares Both's name for a rule by name (as the organisation's rules do).
    expect(lookup('Both', facts)).toEqual({ crossAppAccess: IDP, idpClientSecret: 'x', locked: false });
    expect(lookup('NotBoth', facts)).toEqual({ crossAppAccess: IDP, idpClientSecret: 'x', locked: false });
    expect(lookup('Elsewhere', facts)).toBeUndefined();
    expect(lookup('CRM', facts)).toBeUndefined();
    expect(lookup('Unknown', facts)).toBeUndefined();
  });
});

describe("the organisation's identity provider over the person's", () => {
  const own = { idpIssuer: 'https://mine.example', idpClientId: 'me' };
  it('locked: always the organisation’s; a default: only while the person set none', () => {
    const locked = { crossAppAccess: IDP, locked: true };
    const defaulted = { crossAppAccess: IDP, locked: false };
    expect(effectiveCrossAppAccess(own, locked)).toEqual({ crossAppAccess: IDP, organisation: locked });
    expect(effectiveCrossAppAccess(undefined, defaulted)).toEqual({ crossAppAccess: IDP, organisation: defaulted });
    expect(effectiveCrossAppAccess(own, defaulted)).toEqual({ crossAppAccess: own });
    expect(effectiveCrossAppAccess(own, undefined)).toEqual({ crossAppAccess: own });
    expect(effectiveCrossAppAccess(undefined, undefined)).toEqual({});
  });
});
