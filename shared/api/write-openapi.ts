/** Writes docs/openapi.json from the API's schemas: `npx node shared/api/write-openapi.ts`. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from './openapi.ts';

/** The committed document's location. */
export const OPENAPI_PATH = new URL('../../docs/openapi.json', import.meta.url);

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = fileURLToPath(OPENAPI_PATH);
  writeFileSync(path, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
  // The repository's formatter has the last word on layout; the test compares the parsed document.
  execFileSync('npx', ['biome', 'format', '--write', path], { stdio: 'inherit' });
  console.log(`wrote ${path}`);
}
