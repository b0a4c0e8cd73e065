/**
 * The import-time floor of `npm run bench:bundles`: a handler that imports only the DynamoDB document client
 * and sends one GetItem, bundled as RuntimeFunction bundles the functions. Every function imports at least
 * this (each reads or writes the table), so its import time is the least a function's can be on the machine.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pk: string; sk: string }) =>
  doc.send(new GetCommand({ TableName: 'floor', Key: { pk: event.pk, sk: event.sk } }));
