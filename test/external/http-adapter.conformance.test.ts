import { describeAdapterConformance } from '../support/external-conformance.ts';
import { fixtureHarness } from '../support/fixture-harness.ts';

// The built-in HTTP runtime adapter, through the real egress guard, against the fixture engine.
describeAdapterConformance('http-runtime against the fixture engine', () => fixtureHarness());
