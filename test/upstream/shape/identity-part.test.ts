/**
 * A member with no id of its own is known by the part named for it (YouTube's member
 * item: `snippet.memberDetails.channelId`); anything less certain is no id.
 */
import { describe, expect, it } from 'vitest';
import { identityPartId, MEMBER_NOUNS } from '../../../src/upstream/shape/identity-part.js';
import { normalizeMember } from '../../../src/upstream/shape/normalize-member.js';
import { recordId } from '../../../src/upstream/shape/record-id.js';

const youtubeMember = {
  kind: 'youtube#member',
  etag: 'Xyz',
  snippet: {
    creatorChannelId: 'UCcreator',
    memberDetails: {
      channelId: 'UCmember1',
      channelUrl: 'https://example.test/c/UCmember1',
      displayName: 'Ada',
    },
    membershipsDetails: { highestAccessibleLevelDisplayName: 'Owner' },
  },
};

describe('a member known by its identity part', () => {
  it('reads the id of the part named for the member, with its path', () => {
    expect(identityPartId(youtubeMember, MEMBER_NOUNS)).toEqual({
      id: 'UCmember1',
      path: 'snippet.memberDetails.channelId',
    });
  });

  it('the normalizer and the paging loop read the same id', () => {
    expect(normalizeMember(youtubeMember, {}).value?.id).toBe('UCmember1');
    expect(recordId('team', youtubeMember, {})).toBe('UCmember1');
  });

  it('two parts naming the member, or a part with two ids, give no id', () => {
    const two = { user: { user_id: 'a' }, profile: { profile_id: 'b' } };
    expect(identityPartId(two, MEMBER_NOUNS)).toBeUndefined();
    const both = { memberDetails: { channelId: 'a', accountId: 'b' } };
    expect(identityPartId(both, MEMBER_NOUNS)).toBeUndefined();
    expect(normalizeMember({ details: { channelId: 'x' } }, {}).value).toBeUndefined();
  });
});
