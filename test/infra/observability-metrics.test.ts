/**
 * The dashboard and alarms read the metrics the functions write: same namespace (the functions'
 * POWERTOOLS_METRICS_NAMESPACE), same names and dimensions (infra/constructs/metric-names.ts, the table the
 * handler shells emit from; test/runtime/turn-telemetry.test.ts checks the emitting side).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { RUNTIME_METRICS, SERVICE_DIMENSION } from '../../infra/constructs/metric-names.ts';
import { defaultRuntime, flattenIntrinsics, synthRuntime } from './synth.ts';

/** Resources as `Template.findResources` returns them. */
type Resources = ReturnType<Template['findResources']>;
type Read = { namespace: string; name: string; dimensions: Record<string, string> };

/** Every metric the dashboard graphs: `[namespace, name, dim, value, …, options?]` in each widget. */
function dashboardMetrics(resources: Resources): Read[] {
  const [dashboard] = Object.values(resources);
  const body = JSON.parse(String(flattenIntrinsics(dashboard!.Properties.DashboardBody))) as {
    widgets: { properties: { metrics?: unknown[][] } }[];
  };
  return body.widgets.flatMap((widget) =>
    (widget.properties.metrics ?? []).map((entry) => {
      const parts = entry.filter((part) => typeof part === 'string') as string[];
      const [namespace, name, ...pairs] = parts;
      const dimensions: Record<string, string> = {};
      for (let i = 0; i + 1 < pairs.length; i += 2) dimensions[pairs[i]!] = pairs[i + 1]!;
      return { namespace: namespace!, name: name!, dimensions };
    }),
  );
}

/** The metric of each single-metric alarm (metric-math alarms have no `Namespace`). */
function alarmMetrics(resources: Resources): Read[] {
  const single = Object.values(resources).filter(({ Properties }) => Properties.Namespace !== undefined);
  return single.map(({ Properties: alarm }) => ({
    namespace: String(alarm.Namespace),
    name: String(alarm.MetricName),
    dimensions: Object.fromEntries(
      ((alarm.Dimensions ?? []) as { Name: string; Value: unknown }[]).map((d) => [d.Name, String(d.Value)]),
    ),
  }));
}

function functionEnvironments(resources: Resources) {
  return Object.values(resources).map(
    ({ Properties }) => (Properties.Environment as { Variables: Record<string, string> }).Variables,
  );
}

/** What the emitting side writes for `name`: `service` plus its extra dimension, if any, with a declared value. */
function expectEmittable(read: Read, namespace: string, service: string) {
  const spec = RUNTIME_METRICS[read.name as keyof typeof RUNTIME_METRICS];
  expect(spec, `${read.name} is a metric the code emits`).toBeDefined();
  expect(read.namespace).toBe(namespace);
  const extra = 'dimension' in spec ? spec.dimension : undefined;
  expect(Object.keys(read.dimensions).sort()).toEqual(
    [SERVICE_DIMENSION, ...(extra ? [extra.name] : [])].sort(),
  );
  expect(read.dimensions[SERVICE_DIMENSION]).toBe(service);
  if (extra) expect(extra.values).toContain(read.dimensions[extra.name]);
}

describe('Observability reads the emitted metrics', () => {
  const { template } = defaultRuntime();
  const env = functionEnvironments(template.findResources('AWS::Lambda::Function'));
  const namespace = env[0]!.POWERTOOLS_METRICS_NAMESPACE!;
  const service = env[0]!.POWERTOOLS_SERVICE_NAME!;

  it('every function writes to one namespace and service', () => {
    expect(env.length).toBeGreaterThanOrEqual(8);
    for (const variables of env) {
      // The stack WfTest's own namespace (infra/constructs/deployment-names.ts).
      expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe('WfRuntime/WfTest');
      expect(variables.POWERTOOLS_SERVICE_NAME).toBe('wf-runtime');
    }
  });

  it('graphs every emitted metric, and every value of its dimension, under the functions’ namespace', () => {
    const read = dashboardMetrics(template.findResources('AWS::CloudWatch::Dashboard')).filter(
      (metric) => !metric.namespace.startsWith('AWS/'),
    );
    for (const metric of read) expectEmittable(metric, namespace, service);
    expect([...new Set(read.map((metric) => metric.name))].sort()).toEqual(
      Object.keys(RUNTIME_METRICS).sort(),
    );
    for (const [name, spec] of Object.entries(RUNTIME_METRICS)) {
      if (!('dimension' in spec)) continue;
      const values = read
        .filter((metric) => metric.name === name)
        .map((m) => m.dimensions[spec.dimension.name]);
      expect(values.sort()).toEqual([...spec.dimension.values].sort());
    }
  });

  it('alarms on egress denials, expired approvals, budget stops, deferred cancel anchors, undecided pending starts and signing faults as emitted', () => {
    const read = alarmMetrics(template.findResources('AWS::CloudWatch::Alarm')).filter(
      (metric) => !metric.namespace.startsWith('AWS/'),
    );
    for (const metric of read) expectEmittable(metric, namespace, service);
    expect(read.map((metric) => metric.name).sort()).toEqual([
      'ApprovalsExpired',
      'BudgetStops',
      'CancelAnchorsDeferred',
      'EgressDenials',
      'PendingRunsUndecided',
      'WorkflowSigningFaults',
    ]);
  });

  it('graphs the executions of all three state machines (run, graph, external)', () => {
    const machines = Object.keys(template.findResources('AWS::StepFunctions::StateMachine'));
    expect(machines).toHaveLength(3);
    const graphed = dashboardMetrics(template.findResources('AWS::CloudWatch::Dashboard')).filter(
      (metric) => metric.namespace === 'AWS/States',
    );
    for (const name of ['ExecutionsStarted', 'ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted'])
      expect(
        graphed.filter((metric) => metric.name === name).map((metric) => metric.dimensions.StateMachineArn),
        name,
      ).toEqual(expect.arrayContaining(machines.map((id) => `\${${id}}`)));
  });

  // AWS/States execution metrics, dimension StateMachineArn:
  // https://docs.aws.amazon.com/step-functions/latest/dg/procedure-cw-metrics.html
  it.each(['ExecutionsFailed', 'ExecutionsTimedOut'])(
    'alarms on %s of each of the three state machines (run, graph, external) alike',
    (name) => {
      const machines = Object.keys(template.findResources('AWS::StepFunctions::StateMachine'));
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'))
        .map(({ Properties }) => Properties)
        .filter((alarm) => alarm.Namespace === 'AWS/States' && alarm.MetricName === name);
      const watched = alarms.map((alarm) => {
        const [dimension, ...others] = alarm.Dimensions as { Name: string; Value: { Ref?: string } }[];
        expect(others).toEqual([]);
        expect(dimension?.Name).toBe('StateMachineArn');
        return dimension?.Value.Ref;
      });
      expect(watched.sort()).toEqual([...machines].sort());
      for (const alarm of alarms)
        expect(alarm).toMatchObject({
          Statistic: 'Sum',
          Period: 300,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        });
    },
  );

  it('follows a deployment’s own namespace on the functions, the dashboard and the alarms', () => {
    const custom = synthRuntime({ metricsNamespace: 'WfRuntime/prod' }).template;
    const reads = [
      ...dashboardMetrics(custom.findResources('AWS::CloudWatch::Dashboard')),
      ...alarmMetrics(custom.findResources('AWS::CloudWatch::Alarm')),
    ].filter((metric) => metric.name in RUNTIME_METRICS);
    expect(reads.length).toBeGreaterThan(10);
    for (const metric of reads) expect(metric.namespace).toBe('WfRuntime/prod');
    for (const variables of functionEnvironments(custom.findResources('AWS::Lambda::Function')))
      expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe('WfRuntime/prod');
  });

  it.each(['AWS/Lambda', '', ':colon', 'tab\tname'])('refuses the namespace %j, naming the field', (bad) => {
    expect(() => synthRuntime({ metricsNamespace: bad })).toThrow(/metricsNamespace/);
  });
});
