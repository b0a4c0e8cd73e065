/**
 * Artifacts of the HTTP runtime: the manifest of one incarnation, and one artifact fetched as raw bytes and
 * verified against its manifest entry (path listed and echoed, size, SHA-256) before anything may parse
 * it. A mismatch throws `ArtifactRejectedError` with the evidence: what came, and what the manifest said.
 */
import { createHash } from 'node:crypto';
import { EgressLimitError } from '../../egress/errors.ts';
import type { ArtifactEntry, VerifiedArtifact } from '../contract.ts';
import {
  ArtifactRejectedError,
  type ArtifactRejection,
  ExternalRefusedError,
  ExternalTransportError,
} from '../errors.ts';
import { answerError, requireIncarnation } from './answers.ts';
import type { HttpRuntimeClient } from './client.ts';
import { artifactPathProblem, HEADERS, ManifestSchema, paths } from './protocol.ts';
import type { HttpRuntimeSettings } from './settings.ts';

/** The manifest of `key` at `incarnation`. A manifest with a bad or repeated path is unreadable. */
export async function listArtifacts(
  client: HttpRuntimeClient,
  key: string,
  incarnation: string,
): Promise<ArtifactEntry[]> {
  const response = await client.send(key, { method: 'GET', path: paths.manifest(key) });
  if (response.status !== 200) throw answerError(client.engine, key, response);
  const manifest = client.json(key, response, ManifestSchema);
  requireIncarnation(client.engine, key, incarnation, manifest.incarnation);
  const seen = new Set<string>();
  for (const entry of manifest.artifacts) {
    const problem = artifactPathProblem(entry.path) ?? (seen.has(entry.path) ? 'is listed twice' : undefined);
    if (problem !== undefined) {
      const detail = `manifest path ${JSON.stringify(entry.path)} ${problem}`;
      throw new ExternalTransportError(client.engine, key, 'malformed_response', detail, true);
    }
    seen.add(entry.path);
  }
  return manifest.artifacts;
}

/** One artifact, verified. Nothing of an unverified body leaves this function except its size and digest. */
export async function openArtifact(
  client: HttpRuntimeClient,
  settings: HttpRuntimeSettings,
  key: string,
  incarnation: string,
  path: string,
): Promise<VerifiedArtifact> {
  const manifest = await listArtifacts(client, key, incarnation);
  const expected = manifest.find((entry) => entry.path === path);
  const reject = (reason: ArtifactRejection, received: ArtifactRejectedError['evidence']['received']) =>
    new ArtifactRejectedError(client.engine, key, { reason, expected, received });
  if (expected === undefined) throw reject('not_in_manifest', { path, size: null, sha256: null });
  const cap = settings.maxArtifactBytes;
  if (expected.size > cap) {
    const detail = `artifact ${JSON.stringify(path)} is ${expected.size} bytes, over maxArtifactBytes ${cap}`;
    throw new ExternalRefusedError(client.engine, key, detail);
  }
  let response: Awaited<ReturnType<HttpRuntimeClient['send']>>;
  try {
    response = await client.send(key, {
      method: 'GET',
      path: paths.artifact(key, path),
      maxResponseBytes: cap,
    });
  } catch (error) {
    const tooLarge = error instanceof ExternalTransportError && isTooLarge(error.cause);
    if (tooLarge) throw reject('size_mismatch', { path, size: cap + 1, sha256: null });
    throw error;
  }
  if (response.status !== 200) throw answerError(client.engine, key, response);
  const served = response.headers[HEADERS.incarnation];
  if (served === undefined) {
    throw new ExternalTransportError(
      client.engine,
      key,
      'malformed_response',
      'artifact without incarnation',
      true,
    );
  }
  requireIncarnation(client.engine, key, incarnation, served);
  const bytes = response.body;
  const received = {
    path: servedPath(response.headers[HEADERS.artifactPath]),
    size: bytes.byteLength,
    sha256: sha256(bytes),
  };
  if (received.path !== expected.path) throw reject('path_mismatch', received);
  if (received.size !== expected.size) throw reject('size_mismatch', received);
  if (received.sha256 !== expected.sha256) throw reject('digest_mismatch', received);
  return { entry: expected, bytes, stream: () => new Blob([new Uint8Array(bytes)]).stream() };
}

/** The path the engine says it served (percent-encoded in the header); missing or undecodable is "". */
function servedPath(header: string | undefined): string {
  if (header === undefined) return '';
  try {
    return decodeURIComponent(header);
  } catch {
    return header;
  }
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const isTooLarge = (error: unknown): boolean =>
  error instanceof EgressLimitError && error.reason === 'response_too_large';
