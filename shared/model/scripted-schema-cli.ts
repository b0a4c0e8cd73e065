/**
 * Writes the fixture JSON Schema to docs/fixture.schema.json (a test checks the file is current):
 *   node shared/model/scripted-schema-cli.ts
 */
import { writeFile } from 'node:fs/promises';
import { fixtureJsonSchema } from './scripted-fixture.ts';

const target = new URL('../../docs/fixture.schema.json', import.meta.url);
await writeFile(target, `${JSON.stringify(fixtureJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${target.pathname}\n`);
