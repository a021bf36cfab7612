import { describe, expect, it } from 'vitest';
import { nextFromLinkHeader, parseLinkHeader } from '../../../src/upstream/shape/link-header.js';
import { END } from '../../../src/upstream/shape/paging-end.js';

const base = new URL('https://api.example.com/v1/acme/channels?page=2&per_page=50');

describe('parseLinkHeader', () => {
  it.each([
    [
      'one link',
      '<https://a.test/x?page=2>; rel="next"',
      [{ target: 'https://a.test/x?page=2', rels: ['next'] }],
    ],
    ['unquoted rel', '<https://a.test/x>; rel=next', [{ target: 'https://a.test/x', rels: ['next'] }]],
    [
      'several links',
      '<https://a.test/1>; rel="prev", <https://a.test/3>; rel="next", <https://a.test/9>; rel="last"',
      [
        { target: 'https://a.test/1', rels: ['prev'] },
        { target: 'https://a.test/3', rels: ['next'] },
        { target: 'https://a.test/9', rels: ['last'] },
      ],
    ],
    [
      'comma and semicolon inside a quoted parameter',
      '<https://a.test/1>; title="a, b; c"; rel="next", <https://a.test/2>; rel=last',
      [
        { target: 'https://a.test/1', rels: ['next'] },
        { target: 'https://a.test/2', rels: ['last'] },
      ],
    ],
    [
      'comma inside the URL',
      '<https://a.test/x?ids=1,2,3&page=2>; rel="next"',
      [{ target: 'https://a.test/x?ids=1,2,3&page=2', rels: ['next'] }],
    ],
    [
      'several relation types, any case',
      '<https://a.test/2>; REL="Next Last"',
      [{ target: 'https://a.test/2', rels: ['next', 'last'] }],
    ],
    [
      'escaped quote in a parameter',
      '<https://a.test/2>; title="say \\"hi\\""; rel=next',
      [{ target: 'https://a.test/2', rels: ['next'] }],
    ],
    [
      'no spaces',
      '<https://a.test/2>;rel=next,<https://a.test/1>;rel=prev',
      [
        { target: 'https://a.test/2', rels: ['next'] },
        { target: 'https://a.test/1', rels: ['prev'] },
      ],
    ],
    [
      'first rel wins',
      '<https://a.test/2>; rel=prev; rel=next',
      [{ target: 'https://a.test/2', rels: ['prev'] }],
    ],
    [
      'rel* extended value',
      "<https://a.test/2>; rel*=UTF-8''next",
      [{ target: 'https://a.test/2', rels: ['next'] }],
    ],
    [
      'malformed part skipped',
      'garbage; rel=next, <https://a.test/2>; rel=next',
      [{ target: 'https://a.test/2', rels: ['next'] }],
    ],
    ['unterminated target', '<https://a.test/2; rel=next', []],
    ['empty', '', []],
    ['no rel', '<https://a.test/2>; title=x', [{ target: 'https://a.test/2', rels: [] }]],
  ])('%s', (_name, header, expected) => {
    expect(parseLinkHeader(header).map(({ target, rels }) => ({ target, rels }))).toEqual(expected);
  });

  it('keeps other parameters with lower-cased names', () => {
    expect(
      parseLinkHeader('<https://a.test/2>; rel=next; Title="Page 2"; type=application/json')[0]?.params,
    ).toEqual({
      title: 'Page 2',
      type: 'application/json',
    });
  });
});

describe('nextFromLinkHeader', () => {
  it.each([
    [
      'absolute',
      '<https://api.example.com/v1/acme/channels?page=3>; rel="next"',
      'https://api.example.com/v1/acme/channels?page=3',
    ],
    [
      'path-relative',
      '</v1/acme/channels?page=3>; rel="next"',
      'https://api.example.com/v1/acme/channels?page=3',
    ],
    [
      'query-relative',
      '<?page=3&per_page=50>; rel="next"',
      'https://api.example.com/v1/acme/channels?page=3&per_page=50',
    ],
    ['dot-relative', '<./channels?page=3>; rel="next"', 'https://api.example.com/v1/acme/channels?page=3'],
    [
      'other origin returned as is (the transport refuses it)',
      '<https://evil.test/x>; rel=next',
      'https://evil.test/x',
    ],
    [
      'next among others',
      '<?page=1>; rel=first, <?page=3>; rel="next", <?page=9>; rel=last',
      'https://api.example.com/v1/acme/channels?page=3',
    ],
    ['last page: prev and first only', '<?page=1>; rel="first", <?page=1>; rel="prev"', END],
    ['unrelated links only', '<https://docs.test/>; rel="describedby"', undefined],
    ['a non-http next is ignored', '<mailto:a@b.c>; rel=next', END],
    ['empty', '', undefined],
    ['absent', undefined, undefined],
  ])('%s', (_name, header, expected) => {
    expect(nextFromLinkHeader(header, base)).toEqual(expected);
  });
});
