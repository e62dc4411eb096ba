// batch/v1 Job and CronJob: generated selectors, restart policies, cron schedules, printer columns.
// Go: pkg/registry/batch/{job,cronjob}/strategy.go, pkg/apis/batch/validation/validation.go, pkg/printers
import { OMIT_VALUE, type FieldError } from '../schema/index.js';
import type { KubeObject } from '../types.js';
import { ageColumn, asArray, asRecord, column, formatLabelSelector, humanDuration, nameColumn, sinceTimestamp } from '../printers.js';
import { isPlainObject } from '../types.js';
import { validatePodSpec } from './core.js';
import { forbidden, goLabelSelector, immutable, invalid, nonNegative, oneOf, required, restartPolicyIn, selectorMatchesTemplate } from './checks.js';
import { defineBuiltin } from './define.js';

const JOB_RESTART = ['OnFailure', 'Never'];

/** CONTROLLER_UID_LABEL and JOB_NAME_LABEL are the labels kube puts on a Job's pods (and selector). */
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

// Go: job strategy generateSelector — unless manualSelector, the selector is the job's uid and the template gets the
// uid and name labels (also under their legacy names).
function generateSelector(obj: KubeObject): void {
  const spec = asRecord(obj.spec);
  if (spec.manualSelector === true || !isPlainObject(spec.template)) return;
  const uid = obj.metadata?.uid ?? '';
  const name = obj.metadata?.name ?? '';
  const tmeta = asRecord(spec.template.metadata);
  spec.template.metadata = {
    ...tmeta,
    labels: { ...asRecord(tmeta.labels), [CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name, 'controller-uid': uid, 'job-name': name },
  };
  if (spec.selector === undefined || spec.selector === null) spec.selector = { matchLabels: { [CONTROLLER_UID_LABEL]: uid } };
  obj.spec = spec;
}

// Go: validateJobSpec (+ validatePodTemplateSpec's restart policy rule for jobs).
function validateJobSpec(spec: Record<string, unknown>, path: string, checkSelector: boolean): FieldError[] {
  const errs: FieldError[] = [];
  nonNegative(errs, `${path}.parallelism`, spec.parallelism);
  nonNegative(errs, `${path}.completions`, spec.completions);
  nonNegative(errs, `${path}.backoffLimit`, spec.backoffLimit);
  nonNegative(errs, `${path}.ttlSecondsAfterFinished`, spec.ttlSecondsAfterFinished);
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds <= 0) errs.push(invalid(`${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, 'must be greater than 0'));
  oneOf(errs, `${path}.completionMode`, spec.completionMode, ['NonIndexed', 'Indexed']);
  oneOf(errs, `${path}.podReplacementPolicy`, spec.podReplacementPolicy, ['Failed', 'TerminatingOrFailed']);
  if (spec.completionMode === 'Indexed' && spec.completions == null) errs.push(required(`${path}.completions`, 'when completion mode is Indexed'));
  if (checkSelector && spec.manualSelector === true) errs.push(...selectorMatchesTemplate(spec, 'job', path));
  if (!isPlainObject(spec.template)) {
    errs.push(required(`${path}.template`));
    return errs;
  }
  const podSpec = asRecord(spec.template.spec);
  errs.push(...validatePodSpec(podSpec, `${path}.template.spec`));
  if (podSpec.restartPolicy === undefined || podSpec.restartPolicy === '') errs.push(required(`${path}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  else restartPolicyIn(errs, `${path}.template.spec`, podSpec, JOB_RESTART);
  if (spec.podFailurePolicy && podSpec.restartPolicy === 'OnFailure') {
    errs.push(invalid(`${path}.template.spec.restartPolicy`, podSpec.restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

// Go: printJob — Complete, Failed, Suspended, Running (plus the 1.31 FailureTarget/SuccessCriteriaMet terminating states).
function jobStatus(o: KubeObject): string {
  const conds = asArray(asRecord(o.status).conditions).map(asRecord);
  const has = (t: string) => conds.some((c) => c.type === t && c.status === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  if (has('SuccessCriteriaMet') || has('FailureTarget')) return 'Terminating';
  if (has('Suspended')) return 'Suspended';
  return 'Running';
}

function jobCompletions(o: KubeObject): string {
  const spec = asRecord(o.spec);
  const succeeded = Number(asRecord(o.status).succeeded ?? 0);
  if (spec.completions != null) return `${succeeded}/${spec.completions}`;
  const parallelism = Number(spec.parallelism ?? 0);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: KubeObject, now: number): string {
  const st = asRecord(o.status);
  if (typeof st.startTime !== 'string') return '';
  const start = Date.parse(st.startTime);
  const end = typeof st.completionTime === 'string' ? Date.parse(st.completionTime) : now;
  return humanDuration(end - start);
}

const templateContainers = (tmpl: unknown) => asArray(asRecord(asRecord(tmpl).spec).containers).map(asRecord);

/** jobDescriptor: batch/v1 Job with generated selector, status. */
export const jobDescriptor = defineBuiltin({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  namespaced: true,
  categories: ['all'],
  status: true,
  tracksGeneration: true,
  goDefaults: true,
  fieldNames: ['status.successful'],
  columns: [
    nameColumn,
    column('Status', 'string', jobStatus, { description: 'Status of the job.' }),
    column('Completions', 'string', jobCompletions),
    column('Duration', 'string', jobDuration, { description: 'Time required to complete the job.' }),
    ageColumn,
    column('Containers', 'string', (o) => templateContainers(asRecord(o.spec).template).map((c) => String(c.name)).join(','), { priority: 1 }),
    column('Images', 'string', (o) => templateContainers(asRecord(o.spec).template).map((c) => String(c.image)).join(','), { priority: 1 }),
    column('Selector', 'string', (o) => formatLabelSelector(asRecord(o.spec).selector), { priority: 1 }),
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate(obj) {
      // Go: jobStrategy.Validate generates the selector first (the uid is known by now).
      generateSelector(obj);
      return validateJobSpec(asRecord(obj.spec), 'spec', true);
    },
    validateUpdate(obj, old) {
      const spec = asRecord(obj.spec);
      const oldSpec = asRecord(old.spec);
      const errs = validateJobSpec(spec, 'spec', false);
      if (JSON.stringify(spec.selector ?? null) !== JSON.stringify(oldSpec.selector ?? null)) errs.push(invalid('spec.selector', goLabelSelector(spec.selector), 'field is immutable'));
      immutable(errs, 'spec.completionMode', spec.completionMode, oldSpec.completionMode);
      if (spec.completionMode !== 'Indexed') immutable(errs, 'spec.completions', spec.completions, oldSpec.completions);
      // The pod template may change only while the job is suspended (kube lets a suspended job's template be edited).
      if (oldSpec.suspend !== true && JSON.stringify(spec.template) !== JSON.stringify(oldSpec.template)) {
        errs.push(invalid('spec.template', OMIT_VALUE, 'field is immutable'));
      }
      return errs;
    },
    fields: (o) => ({ 'status.successful': String(asRecord(o.status).succeeded ?? 0) }),
  },
});

// ---------------------------------------------------------------- CronJob

const CRON_MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const CRON_RANGES: [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

// One cron field term ("*/5", "1-10/2", "mon", "?") checked like robfig/cron's getRange; returns the error or undefined.
function cronTermError(term: string, field: number): string | undefined {
  const [rangePart, step, ...extra] = term.split('/');
  if (extra.length > 0) return `too many slashes: ${term}`;
  const [min, max] = CRON_RANGES[field];
  const names = field === 3 ? MONTHS : field === 4 ? DAYS : [];
  const value = (s: string): number | string => {
    const i = names.indexOf(s.toLowerCase());
    if (i >= 0) return field === 3 ? i + 1 : i;
    if (!/^\d+$/.test(s)) return `failed to parse int from ${s}: strconv.Atoi: parsing "${s}": invalid syntax`;
    return Number(s);
  };
  if (rangePart !== '*' && rangePart !== '?') {
    const bounds = rangePart.split('-');
    if (bounds.length > 2) return `too many hyphens: ${rangePart}`;
    const nums: number[] = [];
    for (const b of bounds) {
      const v = value(b);
      if (typeof v === 'string') return v;
      nums.push(v);
    }
    if (nums[0] < min) return `beginning of range (${nums[0]}) below minimum (${min}): ${term}`;
    const end = nums[nums.length - 1];
    if (end > max) return `end of range (${end}) above maximum (${max}): ${term}`;
    if (nums[0] > end) return `beginning of range (${nums[0]}) beyond end of range (${end}): ${term}`;
  }
  if (step !== undefined) {
    if (!/^\d+$/.test(step)) return `failed to parse int from ${step}: strconv.Atoi: parsing "${step}": invalid syntax`;
    if (Number(step) === 0) return `step of range should be a positive number: ${term}`;
  }
  return undefined;
}

/** cronScheduleError checks a schedule like robfig/cron's ParseStandard (5 fields or a descriptor). */
export function cronScheduleError(schedule: string): string | undefined {
  const s = schedule.trim();
  if (s === '') return 'empty spec string';
  if (s.startsWith('@')) {
    if (CRON_MACROS.has(s) || /^@every \S+$/.test(s)) return undefined;
    return `unrecognized descriptor: ${s}`;
  }
  const fields = s.split(/\s+/);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  for (let i = 0; i < 5; i++) {
    for (const term of fields[i].split(',')) {
      const err = cronTermError(term, i);
      if (err) return err;
    }
  }
  return undefined;
}

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch (e) {
    if (e instanceof RangeError) return false;
    throw e;
  }
}

// Go: validateCronJobSpec
function validateCronJob(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? '';
  // Go: ValidateCronJobCreate — the job names it creates append 11 characters.
  if (name.length > 52) errs.push(invalid('metadata.name', name, 'must be no more than 52 characters'));
  const spec = asRecord(obj.spec);
  const schedule = spec.schedule;
  if (typeof schedule !== 'string' || schedule === '') errs.push(required('spec.schedule'));
  else if (/^(CRON_)?TZ=/.test(schedule.trim())) errs.push(invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  else {
    const err = cronScheduleError(schedule);
    if (err) errs.push(invalid('spec.schedule', schedule, err));
  }
  if (typeof spec.timeZone === 'string') {
    if (spec.timeZone === '' || !validTimeZone(spec.timeZone)) errs.push(invalid('spec.timeZone', spec.timeZone, `unknown time zone ${spec.timeZone}`));
  }
  nonNegative(errs, 'spec.startingDeadlineSeconds', spec.startingDeadlineSeconds);
  nonNegative(errs, 'spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit);
  nonNegative(errs, 'spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit);
  oneOf(errs, 'spec.concurrencyPolicy', spec.concurrencyPolicy, ['Allow', 'Forbid', 'Replace']);
  const jobSpec = asRecord(asRecord(spec.jobTemplate).spec);
  if (!isPlainObject(spec.jobTemplate)) errs.push(required('spec.jobTemplate'));
  else errs.push(...validateJobSpec(jobSpec, 'spec.jobTemplate.spec', true));
  if (jobSpec.manualSelector === true) errs.push(forbidden('spec.jobTemplate.spec.manualSelector', 'manualSelector is not supported in a CronJob'));
  return errs;
}

/** cronJobDescriptor: batch/v1 CronJob with status. */
export const cronJobDescriptor = defineBuiltin({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  status: true,
  tracksGeneration: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Schedule', 'string', (o) => String(asRecord(o.spec).schedule ?? '')),
    column('Timezone', 'string', (o) => String(asRecord(o.spec).timeZone ?? '<none>')),
    column('Suspend', 'boolean', (o) => asRecord(o.spec).suspend === true),
    column('Active', 'integer', (o) => asArray(asRecord(o.status).active).length),
    column('Last Schedule', 'string', (o, now) => (asRecord(o.status).lastScheduleTime ? sinceTimestamp(asRecord(o.status).lastScheduleTime, now) : '<none>')),
    ageColumn,
    column('Containers', 'string', (o) => templateContainers(asRecord(asRecord(asRecord(o.spec).jobTemplate).spec).template).map((c) => String(c.name)).join(','), { priority: 1 }),
    column('Images', 'string', (o) => templateContainers(asRecord(asRecord(asRecord(o.spec).jobTemplate).spec).template).map((c) => String(c.image)).join(','), { priority: 1 }),
    column('Selector', 'string', (o) => formatLabelSelector(asRecord(asRecord(asRecord(o.spec).jobTemplate).spec).selector), { priority: 1 }),
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validateCronJob,
    validateUpdate: (obj) => validateCronJob(obj).filter((e) => e.field !== 'metadata.name'),
  },
});
