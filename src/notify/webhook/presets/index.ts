/**
 * The chat presets by name. A `Record` over the preset names, so a name in the schema
 * without a builder here fails to compile.
 */
import type { Notification } from '../../../alerts/types.js';
import { discordPayload } from './discord.js';
import { slackPayload } from './slack.js';
import { teamsPayload } from './teams.js';

/** Names accepted by `webhook.preset`. */
export const PRESET_NAMES = ['slack', 'discord', 'teams'] as const;
/** One of {@link PRESET_NAMES}. */
export type PresetName = (typeof PRESET_NAMES)[number];

/** Builds the body of each preset. */
export const PRESETS: Readonly<Record<PresetName, (n: Notification) => Record<string, unknown>>> = {
  slack: slackPayload,
  discord: discordPayload,
  teams: teamsPayload,
};
