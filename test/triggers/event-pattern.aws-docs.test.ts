/**
 * Example patterns and events from AWS's EventBridge documentation, each row naming its page and section:
 * - "Creating event patterns" (eb-event-patterns), "Event pattern syntax" (eb-create-pattern)
 * - "Matching on multiple field values / arrays" (eb-event-patterns-arrays)
 * - "Matching null values and empty strings" (eb-event-patterns-null-values)
 * - "Matching events on event field values" (eb-filtering-data-types)
 * - "Comparison operators for use in event patterns" (eb-create-pattern-operators, formerly
 *   eb-event-patterns-content-based-filtering / content-filtering-with-event-patterns)
 * - the README of Event Ruler (github.com/aws/event-ruler), the matching engine EventBridge documents as its own.
 * Where a page gives only the pattern, the events are the smallest ones that the page's sentence describes.
 */
import { describe, expect, it } from 'vitest';
import { matchesEventPattern } from '../../shared/triggers/index.ts';

const ec2Event = {
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '111122223333',
  time: '2017-12-22T18:43:48Z',
  region: 'us-west-1',
  resources: ['arn:aws:ec2:us-west-1:123456789012:instance/i-1234567890abcdef0'],
  detail: { 'instance-id': 'i-1234567890abcdef0', state: 'terminated' },
};

const autoScalingEvent = {
  version: '0',
  id: '3e3c153a-8339-4e30-8c35-687ebef853fe',
  'detail-type': 'EC2 Instance Launch Successful',
  source: 'aws.autoscaling',
  account: '123456789012',
  time: '2015-11-11T21:31:47Z',
  region: 'us-east-1',
  resources: [],
  detail: { eventVersion: '', responseElements: null },
};

const rulerEvent = {
  version: '0',
  id: 'ddddd4-aaaa-7777-4444-345dd43cc333',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '012345679012',
  time: '2017-10-02T16:24:49Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
  detail: {
    'c-count': 5,
    'd-count': 3,
    'x-limit': 301.8,
    'source-ip': '10.0.0.33',
    'instance-id': 'i-000000aaaaaa00000',
    state: 'running',
  },
};

const withDetail = (detail: Record<string, unknown>) => ({
  ...rulerEvent,
  detail: { ...rulerEvent.detail, ...detail },
});

const macieEvent = {
  version: '0',
  id: '0948ba87-d3b8-c6d4-f2da-732a1example',
  'detail-type': 'Macie Finding',
  source: 'aws.macie',
  account: '123456789012',
  time: '2021-04-29T23:12:15Z',
  region: 'us-east-1',
  resources: [],
  detail: {
    schemaVersion: '1.0',
    type: 'Policy:IAMUser/S3BucketEncryptionDisabled',
    severity: { score: 1, description: 'Low' },
    count: 2,
  },
};

const resourcesPattern = {
  resources: [
    'arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f',
    'arn:aws:ec2:us-east-1:111122223333:instance/i-b188560f',
    'arn:aws:ec2:us-east-1:444455556666:instance/i-b188560f',
  ],
};

const numericPattern = {
  detail: {
    'c-count': [{ numeric: ['>', 0, '<=', 5] }],
    'd-count': [{ numeric: ['<', 10] }],
    'x-limit': [{ numeric: ['=', 3.018e2] }],
  },
};

const complexPattern = {
  time: [{ prefix: '2017-10-02' }],
  detail: {
    state: [{ 'anything-but': 'initializing' }],
    'c-count': [{ numeric: ['>', 0, '<=', 5] }],
    'd-count': [{ numeric: ['<', 10] }],
    'x-limit': [{ 'anything-but': [100, 200, 300] }],
    'source-ip': [{ cidr: '10.0.0.0/8' }],
  },
};

const orPattern = {
  detail: {
    $or: [
      { 'c-count': [{ numeric: ['>', 0, '<=', 5] }] },
      { 'd-count': [{ numeric: ['<', 10] }] },
      { 'x-limit': [{ numeric: ['=', 3.018e2] }] },
    ],
  },
};

const cloudWatch = (fields: Record<string, unknown>) => ({ source: 'aws.cloudwatch', ...fields });

type Case = [source: string, pattern: unknown, event: unknown, matches: boolean];

const cases: Case[] = [
  // Creating event patterns / Event pattern syntax
  [
    'eb-event-patterns: EC2 instance-termination example',
    {
      source: ['aws.ec2'],
      'detail-type': ['EC2 Instance State-change Notification'],
      detail: { state: ['terminated'] },
    },
    ec2Event,
    true,
  ],
  [
    'eb-event-patterns: same pattern, a running instance',
    {
      source: ['aws.ec2'],
      'detail-type': ['EC2 Instance State-change Notification'],
      detail: { state: ['terminated'] },
    },
    { ...ec2Event, detail: { ...ec2Event.detail, state: 'running' } },
    false,
  ],
  [
    'eb-create-pattern: source aws.ec2 or aws.fargate',
    { source: ['aws.ec2', 'aws.fargate'] },
    { ...ec2Event, source: 'aws.fargate' },
    true,
  ],
  [
    'eb-create-pattern: source aws.ec2 or aws.fargate, an S3 event',
    { source: ['aws.ec2', 'aws.fargate'] },
    { ...ec2Event, source: 'aws.s3' },
    false,
  ],
  [
    'eb-create-pattern: pattern fields must appear with the same nesting',
    { detail: { state: ['terminated'] } },
    { ...ec2Event, detail: {}, state: 'terminated' },
    false,
  ],
  // Arrays
  [
    'eb-event-patterns-arrays: first pattern value equals the second event value',
    resourcesPattern,
    {
      resources: [
        'arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:eb56d16b-bbf0-401d-b893-d5978ed4a025:autoScalingGroupName/ASGTerminate',
        'arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f',
      ],
    },
    true,
  ],
  [
    'eb-event-patterns-arrays: empty intersection',
    resourcesPattern,
    { resources: ['arn:aws:ec2:us-east-1:999999999999:instance/i-b188560f'] },
    false,
  ],
  // Null values and empty strings
  [
    'eb-event-patterns-null-values: eventVersion is an empty string',
    { detail: { eventVersion: [''] } },
    autoScalingEvent,
    true,
  ],
  [
    'eb-event-patterns-null-values: responseElements is null',
    { detail: { responseElements: [null] } },
    autoScalingEvent,
    true,
  ],
  [
    'eb-event-patterns-null-values: empty string does not match null',
    { detail: { responseElements: [''] } },
    autoScalingEvent,
    false,
  ],
  [
    'eb-event-patterns-null-values: null does not match empty string',
    { detail: { eventVersion: [null] } },
    autoScalingEvent,
    false,
  ],
  // Event field values
  [
    'eb-filtering-data-types: field matching on responseElements null',
    {
      source: ['aws.autoscaling'],
      'detail-type': ['EC2 Instance Launch Successful'],
      detail: { responseElements: [null] },
    },
    autoScalingEvent,
    true,
  ],
  [
    'eb-filtering-data-types: value matching severity score 1 and count 2',
    {
      source: ['aws.macie'],
      'detail-type': ['Macie Finding'],
      detail: { severity: { score: [1] }, count: [2] },
    },
    macieEvent,
    true,
  ],
  [
    'eb-filtering-data-types: value matching, count 3',
    {
      source: ['aws.macie'],
      'detail-type': ['Macie Finding'],
      detail: { severity: { score: [1] }, count: [2] },
    },
    { ...macieEvent, detail: { ...macieEvent.detail, count: 3 } },
    false,
  ],
  // Comparison operators: prefix
  [
    'operators/Prefix matching: time starts with 2017-10-02',
    { time: [{ prefix: '2017-10-02' }] },
    { time: '2017-10-02T18:43:48Z' },
    true,
  ],
  [
    'operators/Prefix matching: another day',
    { time: [{ prefix: '2017-10-02' }] },
    { time: '2017-10-12T18:43:48Z' },
    false,
  ],
  [
    'operators/Prefix matching while ignoring case: EVENTB',
    { detail: { service: [{ prefix: { 'equals-ignore-case': 'EventB' } }] } },
    { detail: { service: 'EVENTBRIDGE' } },
    true,
  ],
  [
    'operators/Prefix matching while ignoring case: eventb',
    { detail: { service: [{ prefix: { 'equals-ignore-case': 'EventB' } }] } },
    { detail: { service: 'eventbus' } },
    true,
  ],
  [
    'content-filtering/Prefix matching example: Auto Scaling in Europe',
    { source: ['aws.autoscaling'], region: [{ prefix: 'eu-' }] },
    { ...autoScalingEvent, region: 'eu-west-1' },
    true,
  ],
  [
    'content-filtering/Prefix matching example: Auto Scaling in the US',
    { source: ['aws.autoscaling'], region: [{ prefix: 'eu-' }] },
    autoScalingEvent,
    false,
  ],
  // suffix
  ['operators/Suffix matching: .png', { FileName: [{ suffix: '.png' }] }, { FileName: 'image.png' }, true],
  [
    'operators/Suffix matching: case-sensitive',
    { FileName: [{ suffix: '.png' }] },
    { FileName: 'image.PNG' },
    false,
  ],
  [
    'operators/Suffix matching while ignoring case: .PNG',
    { detail: { FileName: [{ suffix: { 'equals-ignore-case': '.png' } }] } },
    { detail: { FileName: 'image.PNG' } },
    true,
  ],
  [
    'operators table/Ends with (ignore case): tBridge',
    { service: [{ suffix: { 'equals-ignore-case': 'tBridge' } }] },
    { service: 'EVENTBRIDGE' },
    true,
  ],
  // anything-but
  [
    'operators/Anything-but matching: state initializing',
    { detail: { state: [{ 'anything-but': 'initializing' }] } },
    rulerEvent,
    true,
  ],
  [
    'operators/Anything-but matching: state is initializing',
    { detail: { state: [{ 'anything-but': 'initializing' }] } },
    withDetail({ state: 'initializing' }),
    false,
  ],
  [
    'operators/Anything-but matching: x-limit 123',
    { detail: { 'x-limit': [{ 'anything-but': 123 }] } },
    withDetail({ 'x-limit': 123 }),
    false,
  ],
  [
    'operators/Anything-but matching: list of strings',
    { detail: { state: [{ 'anything-but': ['stopped', 'overloaded'] }] } },
    withDetail({ state: 'overloaded' }),
    false,
  ],
  [
    'operators/Anything-but matching: list of numbers',
    { detail: { 'x-limit': [{ 'anything-but': [100, 200, 300] }] } },
    rulerEvent,
    true,
  ],
  [
    'operators/Anything-but matching: prefix init',
    { detail: { state: [{ 'anything-but': { prefix: 'init' } }] } },
    withDetail({ state: 'initializing' }),
    false,
  ],
  [
    'operators/Anything-but matching: suffix',
    { detail: { FileName: [{ 'anything-but': { suffix: '.txt' } }] } },
    { detail: { FileName: 'notes.md' } },
    true,
  ],
  [
    'operators/Anything-but matching while ignoring case: list',
    { detail: { state: [{ 'anything-but': { 'equals-ignore-case': ['Stopped', 'OverLoaded'] } }] } },
    withDetail({ state: 'STOPPED' }),
    false,
  ],
  [
    'operators table/Anything-but using a wildcard: FilePath with /lib/',
    { FilePath: [{ 'anything-but': { wildcard: '*/lib/*' } }] },
    { FilePath: '/usr/lib/libssl.so' },
    false,
  ],
  [
    'content-filtering/Anything-but example: not CloudTrail API calls',
    { 'detail-type': [{ 'anything-but': 'AWS API Call via CloudTrail' }] },
    ec2Event,
    true,
  ],
  [
    'content-filtering/Anything-but example: not from EC2 or S3',
    { source: [{ 'anything-but': ['aws.ec2', 'aws.s3'] }] },
    ec2Event,
    false,
  ],
  [
    'content-filtering/Anything-but example: only your own events',
    { source: [{ 'anything-but': { prefix: 'aws.' } }] },
    { ...ec2Event, source: 'com.mycompany.orders' },
    true,
  ],
  // numeric
  ['operators/Numeric matching: Event Ruler sample event', numericPattern, rulerEvent, true],
  ['operators/Numeric matching: x-limit 301.9', numericPattern, withDetail({ 'x-limit': 301.9 }), false],
  ['operators/Numeric matching: c-count 0 is not > 0', numericPattern, withDetail({ 'c-count': 0 }), false],
  [
    'operators/Numeric matching: numeric strings are not numbers',
    numericPattern,
    withDetail({ 'd-count': '3' }),
    false,
  ],
  [
    'operators table/Numeric (range): Price 20',
    { Price: [{ numeric: ['>', 10, '<=', 20] }] },
    { Price: 20 },
    true,
  ],
  // IP address
  [
    'operators/IP address matching: 10.0.0.0/24 contains 10.0.0.24',
    { detail: { sourceIPAddress: [{ cidr: '10.0.0.0/24' }] } },
    { detail: { sourceIPAddress: '10.0.0.24' } },
    true,
  ],
  [
    'operators/IP address matching: 10.0.1.24 is outside',
    { detail: { sourceIPAddress: [{ cidr: '10.0.0.0/24' }] } },
    { detail: { sourceIPAddress: '10.0.1.24' } },
    false,
  ],
  [
    'Event Ruler README/IP Address Matching: also works with IPv6',
    { detail: { 'source-ip': [{ cidr: '2001:db8::/32' }] } },
    { detail: { 'source-ip': '2001:db8:85a3::8a2e:370:7334' } },
    true,
  ],
  // exists
  [
    'operators/Exists matching: no detail.c-count',
    { detail: { 'c-count': [{ exists: false }] } },
    {
      'detail-type': ['EC2 Instance State-change Notification'],
      detail: { state: ['initializing', 'running'] },
    },
    true,
  ],
  [
    'operators/Exists matching: c-count is not a leaf node',
    { detail: { 'c-count': [{ exists: false }] } },
    { detail: { state: ['initializing', 'running'], 'c-count': { c1: 100 } } },
    true,
  ],
  [
    'operators/Exists matching: c-count present',
    { detail: { 'c-count': [{ exists: false }] } },
    rulerEvent,
    false,
  ],
  [
    'content-filtering/Existence matching example: has a description',
    { detail: { description: [{ exists: true }] } },
    { detail: { description: 'text to index' } },
    true,
  ],
  [
    'content-filtering/Existence matching example: no description',
    { detail: { description: [{ exists: true }] } },
    rulerEvent,
    false,
  ],
  // equals-ignore-case and wildcard
  [
    'operators/Equals-ignore-case matching: detail-type',
    { 'detail-type': [{ 'equals-ignore-case': 'ec2 instance state-change notification' }] },
    ec2Event,
    true,
  ],
  [
    'operators table/Wildcard: .png in folder dir',
    { FileName: [{ wildcard: 'dir/*.png' }] },
    { FileName: 'dir/image.png' },
    true,
  ],
  [
    'operators table/Wildcard: .png elsewhere',
    { FileName: [{ wildcard: 'dir/*.png' }] },
    { FileName: 'dir2/image.png' },
    false,
  ],
  [
    'Event Ruler README/Wildcard matching: Simple*Service',
    { source: [{ wildcard: 'Simple*Service' }] },
    { source: 'SimpleQueueService' },
    true,
  ],
  // complex and $or
  ['operators/Complex example with multiple matching', complexPattern, rulerEvent, true],
  [
    'operators/Complex example: state initializing',
    complexPattern,
    withDetail({ state: 'initializing' }),
    false,
  ],
  [
    'operators/Complex example with $or: d-count < 10 alone',
    orPattern,
    withDetail({ 'c-count': 9, 'x-limit': 1 }),
    true,
  ],
  [
    'operators/Complex example with $or: none holds',
    orPattern,
    withDetail({ 'c-count': 9, 'd-count': 10, 'x-limit': 1 }),
    false,
  ],
  [
    'Event Ruler README/"$or" primitive: normal Or',
    {
      source: ['aws.cloudwatch'],
      $or: [{ metricName: ['CPUUtilization', 'ReadLatency'] }, { namespace: ['AWS/EC2', 'AWS/ES'] }],
    },
    cloudWatch({ namespace: 'AWS/ES' }),
    true,
  ],
  [
    'Event Ruler README/"$or" primitive: parallel Or',
    {
      $or: [{ metricName: ['CPUUtilization'] }, { namespace: ['AWS/EC2'] }],
      detail: { $or: [{ source: ['aws.cloudwatch'] }, { 'detail-type': ['CloudWatch Alarm State Change'] }] },
    },
    { metricName: 'CPUUtilization', detail: { source: 'other' } },
    false,
  ],
  [
    'Event Ruler README/"$or" primitive: Or has an And inside',
    {
      source: ['aws.cloudwatch'],
      $or: [
        { metricName: ['CPUUtilization'] },
        { metricType: ['MetricType'], namespace: ['AWS/EC2', 'AWS/ES'] },
        { scope: ['Service'] },
      ],
    },
    cloudWatch({ metricType: 'MetricType', namespace: 'AWS/EC2' }),
    true,
  ],
  [
    'Event Ruler README/"$or" primitive: nested Or and And',
    {
      source: ['aws.cloudwatch'],
      $or: [
        { metricName: ['CPUUtilization'] },
        {
          metricType: ['MetricType'],
          namespace: ['AWS/EC2'],
          $or: [{ metricId: [1234] }, { spaceId: [1000] }],
        },
      ],
    },
    cloudWatch({ metricType: 'MetricType', namespace: 'AWS/EC2', spaceId: 999 }),
    false,
  ],
];

describe('matchesEventPattern on examples from the AWS EventBridge documentation', () => {
  it('covers at least 40 documented cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', (_source, pattern, event, expected) => {
    expect(matchesEventPattern(pattern, event)).toBe(expected);
  });
});
