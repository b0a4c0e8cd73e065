/**
 * A named HTTP action's input, declared in the workflow file as a small JSON Schema subset, turned into the
 * zod schema the gate parses with and the JSON Schema the model sees (the same constraints, both strict:
 * unknown fields are refused). Path parameters of the URL template that the declaration does not list are
 * added as required strings, so the model is always told about them.
 */

import type { ActionInputJsonSchema } from '../../schemas/connector.ts';
import * as z from '../../zod.ts';

type Property = ActionInputJsonSchema['properties'][string];

/** The parse schema and the model-facing JSON Schema of a connector's input. */
export type ConnectorInput = { input: z.ZodMiniType; jsonSchema: Record<string, unknown> };

/** The zod schema and the model-facing JSON Schema of a connector's declared input. */
export function connectorInput(
  schema: ActionInputJsonSchema,
  pathParams: readonly string[] = [],
): ConnectorInput {
  const properties: Record<string, Property> = { ...schema.properties };
  const required = new Set(schema.required);
  for (const param of pathParams) {
    if (!Object.hasOwn(properties, param)) {
      properties[param] = { type: 'string', description: 'Path parameter.' };
    }
    required.add(param);
  }
  const shape: Record<string, z.ZodMiniType> = {};
  for (const [name, property] of Object.entries(properties)) {
    const field = fieldSchema(property);
    shape[name] = required.has(name) ? field : z.optional(field);
  }
  const jsonProperties = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, jsonProperty(property)]),
  );
  return {
    input: z.strictObject(shape),
    jsonSchema: {
      type: 'object',
      properties: jsonProperties,
      required: [...required].filter((name) => Object.hasOwn(properties, name)),
      additionalProperties: false,
    },
  };
}

function fieldSchema(property: Property): z.ZodMiniType {
  let field: z.ZodMiniType;
  switch (property.type) {
    case 'string': {
      let text = z.string();
      if (property.maxLength !== undefined) text = text.check(z.maxLength(property.maxLength));
      field = text;
      break;
    }
    case 'number':
      field = z.number();
      break;
    case 'integer':
      field = z.number().check(z.int());
      break;
    case 'boolean':
      field = z.boolean();
      break;
    case 'object':
      field = z.record(z.string(), z.unknown());
      break;
    case 'array':
      field = z.array(z.unknown());
      break;
  }
  const allowed = property.enum;
  if (allowed && allowed.length > 0) {
    field = field.check(
      z.refine((value) => allowed.includes(value as string | number), {
        message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
      }),
    );
  }
  return property.description === undefined ? field : field.check(z.describe(property.description));
}

function jsonProperty(property: Property): Record<string, unknown> {
  const out: Record<string, unknown> = { type: property.type };
  if (property.description !== undefined) out.description = property.description;
  if (property.maxLength !== undefined && property.type === 'string') out.maxLength = property.maxLength;
  if (property.enum && property.enum.length > 0) out.enum = property.enum;
  return out;
}
