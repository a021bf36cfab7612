/**
 * The faithful dialects by name (docs/upstream-shapes.md, "Dialects"), each a
 * {@link Dialect} whose `faithful` renders every answer.
 */
import type { Dialect } from '../dialect.js';
import { eventbrite } from './eventbrite.js';
import { github } from './github.js';
import { google } from './google.js';
import { graph } from './graph.js';
import { hal } from './hal.js';
import { hubspot } from './hubspot.js';
import { jira } from './jira.js';
import { jsonapi } from './jsonapi.js';
import { notion } from './notion.js';
import { paypal } from './paypal.js';
import { salesforce } from './salesforce.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { twilio } from './twilio.js';
import { square } from './square.js';
import { stripe } from './stripe.js';
import type { FaithfulDialect } from './types.js';
import { twitch } from './twitch.js';
import { youtube } from './youtube.js';
import { zendesk } from './zendesk.js';

const ALL: readonly FaithfulDialect[] = [
  stripe,
  github,
  graph,
  google,
  jsonapi,
  hal,
  shopify,
  slack,
  twilio,
  jira,
  salesforce,
  zendesk,
  square,
  hubspot,
  notion,
  paypal,
  youtube,
  twitch,
  eventbrite,
];

function shell(fd: FaithfulDialect): Dialect {
  return {
    name: fd.name,
    description: fd.description,
    style: {},
    ids: 'string',
    times: 'iso',
    words: {},
    money: 'major',
    errors: 'json',
    strict: false,
    filters: true,
    faithful: fd,
  };
}

/** Every faithful dialect by name. */
export const FAITHFUL_DIALECTS: Readonly<Record<string, Dialect>> = Object.fromEntries(
  ALL.map((fd) => [fd.name, shell(fd)]),
);

/** Names of the faithful dialects. */
export const FAITHFUL_DIALECT_NAMES: readonly string[] = ALL.map((fd) => fd.name);
