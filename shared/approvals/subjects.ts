/**
 * What a signed link or form nonce can be about: an approval (one gated call) or a human task (one form of a
 * graph run). Each subject has its own MAC domains, so a token of one kind never verifies as the other, and
 * its own claim names, so the approval link format (docs/approvals.md) is unchanged.
 */
export type LinkSubject = 'approval' | 'human_task';

export type SubjectSpec = {
  /** MAC domain of links. */
  link: string;
  /** MAC domain of form nonces. */
  nonce: string;
  /** Claim name of the subject's id. */
  id: string;
  /** Claim name of who the link is for (the approver, the assignee). */
  holder: string;
  /** Claim name of the hash that binds the link to exactly what is shown (the call, the form). */
  hash: string;
};

export const SUBJECTS: Record<LinkSubject, SubjectSpec> = {
  approval: {
    link: 'wf-approval/v1/link\n',
    nonce: 'wf-approval/v1/form-nonce\n',
    id: 'approvalId',
    holder: 'approver',
    hash: 'argsHash',
  },
  human_task: {
    link: 'wf-human-task/v1/link\n',
    nonce: 'wf-human-task/v1/form-nonce\n',
    id: 'taskId',
    holder: 'assignee',
    hash: 'formHash',
  },
};
