import type { Keyring } from '../../shared/approvals/index.ts';

export const KEY_2025 = { kid: 'k2025', secret: 'test-secret-2025-aaaaaaaaaaaaaaaaaaaaaaaa' };
export const KEY_2024 = { kid: 'k2024', secret: 'test-secret-2024-bbbbbbbbbbbbbbbbbbbbbbbb' };
export const OTHER_KEY = { kid: 'k2025', secret: 'someone-elses-secret-cccccccccccccccccccc' };

/** Signs with k2025, still verifies k2024. */
export const keyring: Keyring = { current: KEY_2025, previous: [KEY_2024] };
export const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
