/**
 * Which probes name an id field, for the tenancy check (tenancy-routes.test.ts): a route's probes naming one of
 * A's ids in a query parameter, header or JSON body field (tenancy-fields.ts), and a tool's arguments with an id
 * put at a field's path.
 */
import { type IdField, isField } from './tenancy-fields.ts';
import { ROUTES } from './tenancy-fixtures.ts';
import { refsIn } from './tenancy-request.ts';

/** Whether a probe of the field's route names one of A's ids in that query parameter, header or body field. */
export function probesField({ route, field }: IdField): boolean {
  const fixture = ROUTES[route];
  if (!fixture || !('probes' in fixture)) return false;
  const [where, ...rest] = field.split('.');
  const path = rest.join('.');
  return fixture.probes.some((probe) =>
    where === 'query'
      ? typeof probe.query?.[path] === 'string'
      : where === 'header'
        ? typeof probe.headers?.[path] === 'string'
        : refsIn(probe.json).some((r) => isField(path, r.path)),
  );
}

/**
 * `value` with `id` at the field `path` as idFields names it (`a.b`, `ids[]`: an array of that one id), the
 * objects and arrays on the way made as needed.
 */
export function withField(value: unknown, path: string, id: string): unknown {
  const match = /^([^.[\]]+)(\[\])?(?:\.(.*))?$/.exec(path);
  if (!match) throw new Error(`not a field path: ${path}`);
  const [, name = '', array, rest] = match;
  const object = (value ?? {}) as Record<string, unknown>;
  const inner = rest === undefined ? id : withField(array ? undefined : object[name], rest, id);
  return { ...object, [name]: array ? [inner] : inner };
}
