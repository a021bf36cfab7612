// Regenerates schema/tally.schema.json from the config declaration (npm run schema).
import { writeFileSync } from 'node:fs';
import { JSON_SCHEMA_PATH, renderConfigJsonSchema } from '../src/config/json-schema.js';

writeFileSync(JSON_SCHEMA_PATH, renderConfigJsonSchema());
console.log(`wrote ${JSON_SCHEMA_PATH}`);
