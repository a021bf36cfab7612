/**
 * Where each model field is looked for in a record, after any operator alias: dot paths
 * tried in order, the first usable value wins. This is the exact first tier; a key no
 * alias names is read by its words (concepts.ts), so spellings the words find alike
 * (`planned_start`, `actualEndTime`, `num_questions`) are not listed here. Paths are written in snake_case; other
 * casings match them too (see `prop` in json.ts). No imports: the shape options name
 * these keys, and fields.ts reads them with the options.
 */

/** Built-in aliases per model field. */
export const FIELD_ALIASES = {
  'org.name': ['name', 'display_name', 'title', 'organization_name', 'org_name'],
  'org.plan': ['plan', 'plan.name', 'plan.id', 'plan_name', 'subscription.plan', 'tier'],
  'org.settings': ['settings', 'preferences', 'config'],

  'member.id': ['id', 'user_id', 'member_id', 'uuid', 'key', 'slug', 'user.id', 'email'],
  'member.name': ['name', 'display_name', 'full_name', 'user.name', 'username'],
  'member.email': ['email', 'user.email'],
  'member.role': ['role', 'role.name', 'roles[0]', 'roles[0].name', 'permission', 'access_level'],

  'subscription.plan': ['plan', 'plan.name', 'plan.id', 'plan_name', 'tier'],
  'subscription.limits': ['limits', 'quotas', 'plan.limits', 'entitlements'],
  'subscription.usage': ['usage', 'used', 'consumption'],
  'subscription.funding': ['ai_funding', 'funding', 'ai.funding', 'ai_billing'],
  'subscription.fundingMode': ['ai_funding_mode', 'funding_mode', 'ai_funding_type', 'funding_type'],
  'funding.mode': ['mode', 'type', 'source', 'kind', 'method'],
  'funding.balance': ['wallet.balance', 'balance', 'wallet_balance', 'wallet.amount', 'credits'],
  'funding.balanceMinor': [
    'wallet.balance_cents',
    'balance_cents',
    'wallet_balance_cents',
    'wallet.amount_cents',
    'wallet.balance_minor',
    'balance_minor',
    'wallet.amount_minor',
    'wallet.minor_units',
    'balance_minor_units',
  ],
  'funding.currency': ['wallet.currency', 'currency', 'wallet_currency', 'balance.currency'],
  'funding.provider': ['byok.provider', 'provider', 'byok_provider', 'key.provider'],
  'funding.keyStatus': ['byok.key_status', 'key_status', 'byok.status', 'key.status', 'byok_key_status'],
  'limit.name': ['name', 'key', 'id', 'resource', 'metric', 'type'],
  'limit.limit': ['limit', 'max', 'maximum', 'quota', 'allowed', 'included', 'value'],
  'limit.used': ['used', 'usage', 'current', 'consumed', 'count'],

  'channel.id': ['id', 'uuid', 'key', 'slug', 'channel_id'],
  'channel.name': ['name', 'title', 'display_name'],
  'channel.status': ['status', 'state', 'live_status', 'stream_status'],
  'channel.live': ['live', 'is_live', 'online', 'is_online', 'on_air'],
  'channel.visibility': ['visibility', 'privacy', 'access', 'audience'],
  'channel.public': ['is_public', 'public'],
  'channel.activityAt': ['sessions_updated_at', 'activity_at'],
  'channel.sessionCount': ['sessions_count'],
  'channel.private': ['is_private', 'private'],

  'session.id': ['id', 'uuid', 'key', 'slug', 'session_id', 'broadcast_id'],
  'session.channelId': ['channel_id', 'channel.id', 'channel', 'channel_slug'],
  'session.title': ['title', 'name', 'topic', 'display_name', 'subject'],
  'session.status': ['status', 'state'],
  'session.scheduledAt': ['scheduled_at', 'scheduled_for'],
  'session.scheduledEndAt': ['scheduled_end_at'],
  'session.startedAt': ['started_at', 'live_at'],
  'session.endedAt': ['ended_at'],

  'detail.questions': ['questions', 'qna', 'qa'],
  'detail.questionsCount': ['questions_count', 'counts.questions', 'stats.questions', 'totals.questions'],
  'detail.announcements': ['announcements', 'notices'],
  'detail.announcementsCount': [
    'announcements_count',
    'counts.announcements',
    'stats.announcements',
    'totals.announcements',
  ],
  'detail.speakers': ['speakers', 'hosts', 'panelists'],
  'detail.speakersCount': ['speakers_count', 'counts.speakers', 'stats.speakers', 'totals.speakers'],
  'detail.reactions': ['reactions', 'reaction_counts', 'reactions_by_kind'],
  'detail.reactionsCount': ['reactions_count', 'counts.reactions', 'stats.reactions', 'totals.reactions'],
  'detail.aiStatus': ['ai.status', 'ai.state', 'ai_status', 'ai_state'],
  'detail.aiEnabled': ['ai.enabled', 'ai.is_enabled', 'ai_enabled', 'ai.active'],

  'question.id': ['id', 'uuid', 'key', 'question_id'],
  'question.text': ['text', 'body', 'question', 'content', 'message', 'title'],
  'question.at': [
    'asked_at',
    'created_at',
    'posted_at',
    'submitted_at',
    'asked',
    'created',
    'timestamp',
    'at',
    'time',
    'date',
  ],
  'announcement.id': ['id', 'uuid', 'key', 'announcement_id'],
  'announcement.text': ['text', 'body', 'message', 'content', 'title'],
  'announcement.at': [
    'posted_at',
    'published_at',
    'created_at',
    'sent_at',
    'published',
    'posted',
    'created',
    'timestamp',
    'at',
    'time',
    'date',
  ],
  'speaker.id': ['id', 'user_id', 'user.id', 'speaker_id', 'uuid', 'key', 'slug'],
  'speaker.name': ['name', 'display_name', 'full_name', 'user.name', 'username', 'text'],
  'speaker.at': ['joined_at', 'started_at', 'created_at', 'joined', 'since', 'timestamp', 'at'],
  'reaction.kind': ['kind', 'type', 'emoji', 'name', 'reaction'],
  'reaction.count': ['count', 'total', 'n', 'value'],
} as const satisfies Record<string, readonly string[]>;

/** A model field tally reads, e.g. `channel.status`. */
export type FieldKey = keyof typeof FIELD_ALIASES;
