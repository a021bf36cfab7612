/**
 * The JSON Schema of the config file, generated from the same zod declaration that
 * validates it, so editors (yaml-language-server) complete and check what tally accepts.
 */
import { z } from 'zod';
import { configSchema } from './schema.js';

/** Where the published schema lives, relative to the repository root. */
export const JSON_SCHEMA_PATH = 'schema/tally.schema.json';

/** Renders the config JSON Schema as formatted text (what `schema/tally.schema.json` holds). */
export function renderConfigJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  return `${JSON.stringify(schema, null, 2)}\n`;
}
