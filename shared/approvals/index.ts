export { ApprovalLinkError, ApprovalPageError, KeyringError } from './errors.ts';
export { APPROVAL_PAGE_HEADERS } from './headers.ts';
export { escapeHtml } from './html.ts';
export type { Keyring, SigningKey } from './keyring.ts';
export { findKey, KeyringSchema, parseKeyring } from './keyring.ts';
export type { KeyringSource } from './keyring-source.ts';
export { cachedKeyring, checkWithKeyring, fixedKeyring, keyringSourceOf } from './keyring-source.ts';
export type { ApprovalLinkClaims, ApprovalLinkFailure, ApprovalLinkVerification } from './link.ts';
export { argsHash, signApprovalLink, verifyApprovalLink } from './link.ts';
export type { FormNonceFailure, PageHeadClaim } from './nonce.ts';
export {
  FORM_NONCE_MAX_AGE_MS,
  issueFormNonce,
  issueSubjectNonce,
  verifyFormNonce,
  verifySubjectNonce,
} from './nonce.ts';
export type { ApprovalPageView } from './page.ts';
export { renderApprovalPage } from './page.ts';
export type { ApprovalOutcome, ResultPageView, ResultStatus } from './pages.ts';
export { approvalResult, RESULT_TITLES, renderResultPage } from './pages.ts';
export type { SealedTokenFailure } from './sealed-token.ts';
export { openSealedToken, sealToken } from './sealed-token.ts';
export type { SubjectLinkClaims, SubjectLinkFailure, SubjectLinkVerification } from './subject-link.ts';
export { signSubjectLink, verifySubjectLink } from './subject-link.ts';
export type { LinkSubject } from './subjects.ts';
export type { PageCollection } from './url.ts';
export { approvalPostUrl, approvalUrl, pagePostUrl, pageUrl } from './url.ts';
