/**
 * `CredentialReader`: the role through which the runtime reads workflow credentials, one tagged session per
 * owner (shared/credentials/owner-sessions.ts). Attribute-based access control: a session tagged
 * `wf-owner=<ownerKey>` may read a secret only when
 * - its name is `<prefix><ownerKey>/…` (the `${aws:PrincipalTag/wf-owner}` policy variable in the resource), and
 * - its `wf-owner` resource tag equals the session's (`aws:ResourceTag/wf-owner`).
 * The functions' own roles cannot read credential secrets at all; they may only assume this role with a tag.
 *
 * AWS documentation relied on:
 * - Session tags become `aws:PrincipalTag/<key>`; AssumeRole with tags needs `sts:TagSession` in the trust
 *   policy: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_permissions-required
 * - ABAC on secrets, resource tag against `${aws:PrincipalTag/<key>}`:
 *   https://docs.aws.amazon.com/secretsmanager/latest/userguide/auth-and-access-abac.html. The secret resource
 *   type takes both `aws:ResourceTag/${TagKey}` and `secretsmanager:ResourceTag/tag-key`
 *   (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html); the global
 *   key is used because the offline IAM check (test/iam, iam-simulate) evaluates it and not the service one.
 * - Policy variables (`${aws:PrincipalTag/…}`) in the Resource element:
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html
 * - Restricting which session tags may be passed (`aws:RequestTag`, `aws:TagKeys` on sts:TagSession):
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_permissions-required
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { OWNER_TAG_KEY } from '../../shared/credentials/owner-key.ts';
import { acknowledgeGrantWildcards } from './nag.ts';

export { OWNER_TAG_KEY };

export interface CredentialReaderProps {
  /** Credential secret names start with this, then the owner's key and `/`. */
  readonly namePrefix: string;
  /** Execution roles of the functions that resolve credentials (turn, deliver, graph-service, external). */
  readonly readers: readonly iam.IRole[];
}

/** The per-owner credential-reading role and its grants. */
export class CredentialReader extends Construct {
  /** The role each owner's session assumes. */
  public readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: CredentialReaderProps) {
    super(scope, id);
    if (props.readers.length === 0)
      throw new Error(
        `CredentialReader '${id}': readers is empty; give the execution roles of the functions that resolve credentials (turn, deliver, graph-service, external)`,
      );
    const stack = Stack.of(this);
    const principals = props.readers.map((reader) => new iam.ArnPrincipal(reader.roleArn));
    // Trust: the readers may AssumeRole (one statement), and TagSession only with exactly the wf-owner tag.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.CompositePrincipal(...principals),
      description:
        "Reads one owner's workflow credentials: sessions tagged wf-owner, secrets tagged the same",
    });
    this.role.assumeRolePolicy?.addStatements(
      new iam.PolicyStatement({
        actions: ['sts:TagSession'],
        principals,
        conditions: {
          StringLike: { [`aws:RequestTag/${OWNER_TAG_KEY}`]: '?*' },
          'ForAllValues:StringEquals': { 'aws:TagKeys': [OWNER_TAG_KEY] },
        },
      }),
    );
    // The callers' side: their identity policies allow the same two actions on this role only.
    for (const reader of props.readers) {
      iam.Grant.addToPrincipal({
        grantee: reader,
        actions: ['sts:AssumeRole', 'sts:TagSession'],
        resourceArns: [this.role.roleArn],
      });
    }
    const ownSecrets = stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      // The owner's namespace only; ARNs end in a random 6-character suffix, hence the trailing wildcard.
      resourceName: `${props.namePrefix}\${aws:PrincipalTag/${OWNER_TAG_KEY}}/*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const grant = iam.Grant.addToPrincipal({
      grantee: this.role,
      actions: ['secretsmanager:GetSecretValue'],
      resourceArns: [ownSecrets],
      conditions: {
        StringEquals: {
          [`aws:ResourceTag/${OWNER_TAG_KEY}`]: `\${aws:PrincipalTag/${OWNER_TAG_KEY}}`,
        },
      },
    });
    acknowledgeGrantWildcards(
      this.role,
      grant,
      "Credential secrets are created by operators per owner; the wildcard is confined to the session owner's " +
        `namespace (${props.namePrefix}<ownerKey>/*) and to secrets whose wf-owner tag equals the session's.`,
    );
  }
}
