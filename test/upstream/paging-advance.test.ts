/** Telling whether paging advances: page keys, and the names a cursor may go back in. */
import { describe, expect, it } from 'vitest';
import { formatExplain } from '../../src/cli/explain.js';
import { QueryMemory } from '../../src/upstream/query/adapt.js';
import { pageKey } from '../../src/upstream/lists/read-list.js';
import { readListPage } from '../../src/upstream/shape/index.js';
import { cursorParamNames } from '../../src/upstream/shape/paging-signals.js';

describe('pageKey', () => {
  const key = (u: string) => pageKey(new URL(u), {});

  it('leaves out what does not tell pages apart: page 1, offset 0, the page size, the order', () => {
    const first = key('https://api.test/v1/o/channels?per_page=100');
    expect(key('https://api.test/v1/o/channels?page=1')).toBe(first);
    expect(key('https://api.test/v1/o/channels?page=0&per_page=3')).toBe(first);
    expect(key('https://api.test/v1/o/channels?offset=0')).toBe(first);
    expect(key('https://api.test/v1/o/channels?page=2')).not.toBe(first);
    expect(key('https://api.test/v1/o/channels?cursor=x')).not.toBe(first);
    expect(key('https://api.test/v1/o/channels?from=1&page=2')).toBe(
      key('https://api.test/v1/o/channels?page=2&from=1'),
    );
    expect(key('https://api.test/v1/o/channels/x/sessions')).not.toBe(first);
  });

  it('follows the configured parameter names', () => {
    const shape = { pageParam: 'p', perPageParam: 'size' };
    expect(pageKey(new URL('https://api.test/l?p=1&size=5'), shape)).toBe(
      pageKey(new URL('https://api.test/l'), shape),
    );
  });
});

describe('cursorParamNames', () => {
  it.each<[string, string[]]>([
    ['next_page_token', ['page_token', 'pageToken', 'next_page_token', 'nextPageToken']],
    ['next_token', ['token', 'next_token', 'nextToken', 'pagination_token']],
    ['meta.next_token', ['token', 'next_token', 'nextToken', 'pagination_token']],
    ['continuation_token', ['continuation_token', 'continuationToken']],
    ['meta.next_page_cursor', ['page_cursor', 'pageCursor', 'next_page_cursor', 'nextPageCursor']],
    ['next_cursor', ['next_cursor', 'nextCursor', 'start_cursor']],
    ['page_info.end_cursor', ['after', 'start_cursor']],
    ['paging.cursors.after', ['after']],
    ['meta.next', []],
    ['cursor', []],
  ])('%s → %j', (key, names) => {
    expect(cursorParamNames(key, 'cursor')).toEqual(names);
  });

  it('never names the parameter already sent', () => {
    expect(cursorParamNames('next_page_token', 'pageToken')).toEqual([
      'page_token',
      'next_page_token',
      'nextPageToken',
    ]);
  });
});

describe('readListPage: where the cursor goes back', () => {
  const url = new URL('https://api.test/v1/o/channels?per_page=2');
  const st = { page: 1, perPage: 2, seen: 0 };

  it('offers the names a Google-style token key suggests', () => {
    const page = readListPage('channels', { results: [{ id: 1 }], next_page_token: 'T' }, {}, url, {}, st);
    expect(page.next).toEqual({ kind: 'params', params: { cursor: 'T' } });
    expect(page.cursorNames).toEqual(['page_token', 'pageToken', 'next_page_token', 'nextPageToken']);
  });

  it('offers none on the last page or for a plain cursor', () => {
    expect(
      readListPage('channels', { results: [{ id: 1 }], next_page_token: '' }, {}, url, {}, st).cursorNames,
    ).toBeUndefined();
    expect(
      readListPage('channels', { data: [{ id: 1 }], cursor: 'c', has_more: true }, {}, url, {}, st)
        .cursorNames,
    ).toBeUndefined();
  });
});

describe('what is remembered of a cursor', () => {
  it('keeps the name a cursor goes back in, and that none worked, across restarts', () => {
    const m = new QueryMemory();
    m.load({
      'acme channels': { cursorParam: 'pageToken' },
      'acme team': { cursorStuck: true },
      'acme sessions': { cursorParam: 'a b&c=d', cursorStuck: 'yes' },
    });
    expect(m.get('acme', 'channels')).toEqual({ cursorParam: 'pageToken' });
    expect(m.get('acme', 'team')).toEqual({ cursorStuck: true });
    expect(m.get('acme', 'sessions')).toEqual({});
  });
});

describe('--explain says what was learned of a cursor', () => {
  const entry = (learned: object) => ({
    acme: {
      channels: {
        paging: { cursor: 3 },
        reads: 1,
        listAt: ['results'],
        items: 5,
        learned,
        fields: {},
        ignoredKeys: {},
        drift: [],
      },
    },
  });

  it('names the parameter, or that none advanced', () => {
    expect(formatExplain(entry({ cursorParam: 'pageToken' }))).toContain(
      '    learned: cursor sent back as pageToken\n',
    );
    expect(formatExplain(entry({ moreBy: 'starting_after' }))).toContain(
      '    learned: the page after a "more" without a pointer asked by starting_after\n',
    );
    expect(formatExplain(entry({ drop: ['from', 'to'], ignored: ['window'] }))).toContain(
      'the window is not sent (tally filters)',
    );
    expect(formatExplain(entry({ drop: ['per_page'], ignored: ['window'] }))).toContain(
      'server ignores the window filter (tally filters)',
    );
    expect(formatExplain(entry({ cursorStuck: true }))).toContain(
      '    learned: the server ignores the cursor under every name tried (lists incomplete)\n',
    );
  });
});
