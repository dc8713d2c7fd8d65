import { at, fields, firstStr, isFields, isTrue, list, lookup, num, str, textAt, type Fields } from './field-access.js';
import { header, userName, type ForgeSender } from './forge-sender.js';
import { BUILDBOT_RESULTS, normalizeCiStatus, type CiStatus } from './ci-status.js';
import { branchName, parseRef, plural, secondsBetween } from './text-format.js';
import type { Headers } from './types.js';

/** One CI delivery in the shape ci-build renders, whichever system sent it. */
export interface CiBuild {
  system: string;
  event?: string;
  repository?: string;
  pipeline?: string;
  job?: string;
  number?: string;
  /** The sender's own status word. */
  rawStatus?: string;
  /** Set when the sender's word alone does not decide (numeric codes, phases). */
  status?: CiStatus;
  branch?: string;
  tag?: string;
  sha?: string;
  message?: string;
  actor?: string;
  durationSeconds?: number;
  url?: string;
  details?: string[];
}

export interface CiReader {
  system: string;
  name: string;
  matches(p: Fields, headers: Headers): boolean;
  read(p: Fields, headers: Headers): CiBuild;
}

/** A known sender whose event is not a build (a GitHub push posted to ci-build). */
export interface CiUnsupported {
  system: ForgeSender;
  name: string;
  event: string;
}

const GITHUB_CI_EVENTS = ['workflow_run', 'workflow_job', 'check_run', 'check_suite', 'status'];

function githubEvent(p: Fields, headers: Headers): string | undefined {
  const named = header(headers, 'x-github-event') ?? GITHUB_CI_EVENTS.find((e) => e !== 'status' && isFields(p[e]));
  if (named) return named;
  // A commit status has no object of its own: `context` (the check's name), `state`, `sha` and the commit.
  return str(p.context) && str(p.state) && str(p.sha) && (isFields(p.commit) || p.target_url !== undefined) ? 'status' : undefined;
}

const github: CiReader = {
  system: 'github',
  name: 'GitHub Actions',
  matches: (p, h) => GITHUB_CI_EVENTS.includes(githubEvent(p, h) ?? ''),
  read(p, h) {
    const event = githubEvent(p, h) ?? 'workflow_run';
    const common = {
      system: 'github',
      event,
      repository: firstStr(at(p, 'repository', 'full_name'), at(p, 'repository', 'name')),
      actor: userName(p.sender),
    };
    if (event === 'workflow_run') {
      const run = fields(p.workflow_run);
      return Object.assign({}, common, {
        pipeline: firstStr(at(p, 'workflow', 'name'), run.name),
        number: str(run.run_number),
        rawStatus: firstStr(run.conclusion, run.status),
        branch: str(run.head_branch),
        sha: str(run.head_sha),
        message: textAt(run, 'head_commit', 'message'),
        actor: firstStr(userName(run.actor), common.actor),
        durationSeconds: run.status === 'completed' ? secondsBetween(run.run_started_at, run.updated_at) : undefined,
        url: str(run.html_url),
        details: str(run.display_title) ? [`Run: ${str(run.display_title)}`] : undefined,
      });
    }
    if (event === 'workflow_job') {
      const job = fields(p.workflow_job);
      const failedSteps = list(job.steps)
        .filter((s) => at(s, 'conclusion') === 'failure')
        .map((s) => textAt(s, 'name'))
        .filter((s) => s !== undefined);
      return Object.assign({}, common, {
        pipeline: str(job.workflow_name),
        job: str(job.name),
        number: str(job.run_id),
        rawStatus: firstStr(job.conclusion, job.status),
        branch: str(job.head_branch),
        sha: str(job.head_sha),
        durationSeconds: secondsBetween(job.started_at, job.completed_at),
        url: str(job.html_url),
        details: failedSteps.length > 0 ? [`Failed steps: ${failedSteps.slice(0, 10).join(', ')}`] : undefined,
      });
    }
    if (event === 'check_run' || event === 'check_suite') {
      const check = fields(p[event]);
      const suite = event === 'check_run' ? fields(check.check_suite) : check;
      const app = firstStr(at(check, 'app', 'name'), at(suite, 'app', 'name'));
      return Object.assign({}, common, {
        system: 'github',
        pipeline: event === 'check_run' ? firstStr(check.name, app) : app,
        rawStatus: firstStr(check.conclusion, check.status),
        branch: str(suite.head_branch),
        sha: firstStr(check.head_sha, suite.head_sha),
        message: textAt(suite, 'head_commit', 'message'),
        durationSeconds: secondsBetween(check.started_at, check.completed_at),
        url: firstStr(check.html_url, check.details_url),
        details: event === 'check_run' && app ? [`Check app: ${app}`] : undefined,
      });
    }
    return Object.assign({}, common, {
      pipeline: str(p.context),
      rawStatus: str(p.state),
      branch: textAt(list(p.branches)[0], 'name'),
      sha: str(p.sha),
      message: textAt(p, 'commit', 'commit', 'message'),
      url: str(p.target_url),
      details: str(p.description) ? [str(p.description)!] : undefined,
    });
  },
};

function gitlabKind(p: Fields, headers: Headers): string | undefined {
  const kind = str(p.object_kind);
  if (kind) return kind;
  const h = header(headers, 'x-gitlab-event');
  return h === 'Pipeline Hook' ? 'pipeline' : h === 'Job Hook' ? 'build' : undefined;
}

const gitlab: CiReader = {
  system: 'gitlab',
  name: 'GitLab CI',
  matches: (p, h) => ['pipeline', 'build'].includes(gitlabKind(p, h) ?? ''),
  read(p, h) {
    const actor = firstStr(at(p, 'user', 'username'), at(p, 'user', 'name'));
    const repository = firstStr(at(p, 'project', 'path_with_namespace'), p.project_name, at(p, 'repository', 'name'));
    if (gitlabKind(p, h) === 'build') {
      const status = str(p.build_status);
      const web = firstStr(at(p, 'project', 'web_url'), at(p, 'repository', 'homepage'));
      const id = str(p.build_id);
      return {
        system: 'gitlab',
        event: 'build',
        repository,
        pipeline: str(p.pipeline_id) ? `pipeline ${str(p.pipeline_id)}` : undefined,
        job: [str(p.build_name), str(p.build_stage) ? `(stage ${str(p.build_stage)})` : undefined].filter((s) => s).join(' ') || undefined,
        number: id,
        rawStatus: status,
        ...refFacts(str(p.ref), isTrue(p.tag)),
        sha: firstStr(p.sha, at(p, 'commit', 'sha')),
        message: textAt(p, 'commit', 'message'),
        actor,
        durationSeconds: num(p.build_duration),
        url: web && id ? `${web}/-/jobs/${id}` : undefined,
        details: status === 'failed' && str(p.build_failure_reason) ? [`Failure reason: ${str(p.build_failure_reason)}`] : undefined,
      };
    }
    const attrs = fields(p.object_attributes);
    const jobs = list(p.builds)
      .slice(0, 30)
      .map((b) => `- ${textAt(b, 'name') ?? '(job)'}${textAt(b, 'stage') ? ` [${textAt(b, 'stage')}]` : ''}: ${textAt(b, 'status') ?? 'unknown'}`);
    const web = textAt(p, 'project', 'web_url');
    return {
      system: 'gitlab',
      event: 'pipeline',
      repository,
      pipeline: firstStr(attrs.name, 'pipeline'),
      number: firstStr(attrs.iid, attrs.id),
      rawStatus: firstStr(attrs.detailed_status, attrs.status),
      ...refFacts(str(attrs.ref), isTrue(attrs.tag)),
      sha: str(attrs.sha),
      message: textAt(p, 'commit', 'message'),
      actor,
      durationSeconds: num(attrs.duration),
      url: firstStr(attrs.url, web && str(attrs.id) ? `${web}/-/pipelines/${str(attrs.id)}` : undefined),
      details: jobs.length > 0 ? ['Jobs:', ...jobs] : undefined,
    };
  },
};

function refFacts(ref: string | undefined, isTag: boolean): { branch?: string; tag?: string } {
  const { type, name } = parseRef(ref, isTag ? 'tag' : 'branch');
  return type === 'tag' ? { tag: name } : { branch: name };
}

const buildkite: CiReader = {
  system: 'buildkite',
  name: 'Buildkite',
  matches: (p, h) =>
    header(h, 'x-buildkite-event') !== undefined ||
    (/^(build|job)\./.test(str(p.event) ?? '') && isFields(p.pipeline) && (isFields(p.build) || isFields(p.job))),
  read(p, h) {
    const build = fields(p.build);
    const job = isFields(p.job) ? p.job : undefined;
    const state = firstStr(job?.state, build.state);
    return {
      system: 'buildkite',
      event: firstStr(header(h, 'x-buildkite-event'), p.event),
      repository: firstStr(at(p, 'pipeline', 'repository'), at(p, 'pipeline', 'slug')),
      pipeline: firstStr(at(p, 'pipeline', 'name'), at(p, 'pipeline', 'slug')),
      job: firstStr(job?.name, job?.label),
      number: str(build.number),
      rawStatus: isTrue(build.blocked) && !job ? 'blocked' : state,
      ...refFacts(str(build.branch), false),
      tag: str(build.tag),
      sha: str(build.commit),
      message: str(build.message),
      actor: firstStr(at(build, 'creator', 'name'), at(p, 'sender', 'name')),
      durationSeconds: secondsBetween(firstStr(job?.started_at, build.started_at), firstStr(job?.finished_at, build.finished_at)),
      url: firstStr(job?.web_url, build.web_url, build.url),
      details: job && str(job.exit_status) ? [`Exit status: ${str(job.exit_status)}`] : undefined,
    };
  },
};

const circleci: CiReader = {
  system: 'circleci',
  name: 'CircleCI',
  matches: (p, h) =>
    header(h, 'circleci-event-type') !== undefined ||
    (/^(workflow|job)-completed$/.test(str(p.type) ?? '') && (isFields(p.workflow) || isFields(p.job))) ||
    (isFields(p.payload) && (at(p, 'payload', 'build_num') !== undefined || at(p, 'payload', 'vcs_url') !== undefined)),
  read(p, h) {
    if (isFields(p.payload) && !isFields(p.pipeline)) return circleciLegacy(p.payload);
    const vcs = fields(at(p, 'pipeline', 'vcs'));
    const gl = fields(at(p, 'pipeline', 'trigger_parameters', 'gitlab'));
    const git = fields(at(p, 'pipeline', 'trigger_parameters', 'git'));
    const job = isFields(p.job) ? p.job : undefined;
    const workflow = fields(p.workflow);
    const org = textAt(p, 'organization', 'name');
    const project = textAt(p, 'project', 'name');
    return {
      system: 'circleci',
      event: firstStr(header(h, 'circleci-event-type'), p.type),
      repository: org && project ? `${org}/${project}` : (project ?? textAt(p, 'project', 'slug')),
      pipeline: str(workflow.name),
      job: str(job?.name),
      number: firstStr(job?.number, at(p, 'pipeline', 'number')),
      rawStatus: firstStr(job?.status, workflow.status),
      branch: firstStr(vcs.branch, gl.branch, git.branch),
      tag: str(vcs.tag),
      sha: firstStr(vcs.revision, gl.checkout_sha, gl.commit_sha, git.checkout_sha),
      message: firstStr(at(vcs, 'commit', 'subject'), gl.commit_title, gl.commit_message),
      actor: firstStr(at(vcs, 'commit', 'author', 'name'), gl.user_username, gl.commit_author_name),
      durationSeconds: secondsBetween(firstStr(job?.started_at, workflow.created_at), firstStr(job?.stopped_at, workflow.stopped_at)),
      url: firstStr(workflow.url, job?.url),
    };
  },
};

function circleciLegacy(build: Fields): CiBuild {
  const ms = num(build.build_time_millis);
  const owner = str(build.username);
  const repo = str(build.reponame);
  return {
    system: 'circleci',
    event: 'build',
    repository: owner && repo ? `${owner}/${repo}` : repo,
    pipeline: textAt(build, 'workflows', 'workflow_name'),
    job: textAt(build, 'workflows', 'job_name'),
    number: str(build.build_num),
    rawStatus: firstStr(build.status, build.outcome, build.lifecycle),
    branch: str(build.branch),
    sha: str(build.vcs_revision),
    message: str(build.subject),
    actor: firstStr(build.committer_name, build.author_name, build.user && userName(build.user)),
    durationSeconds: ms === undefined ? secondsBetween(build.start_time, build.stop_time) : ms / 1000,
    url: str(build.build_url),
  };
}

const azure: CiReader = {
  system: 'azure-devops',
  name: 'Azure DevOps',
  matches: (p) => str(p.eventType) !== undefined && (p.publisherId !== undefined || isFields(p.resource)),
  read(p) {
    const event = str(p.eventType);
    const r = fields(p.resource);
    const project = firstStr(at(r, 'project', 'name'), at(r, 'definition', 'project', 'name'), at(p, 'resourceContainers', 'project', 'name'));
    const summary = textAt(p, 'message', 'text');
    const common = { system: 'azure-devops', event, details: summary ? [summary] : undefined };
    if (event?.startsWith('ms.vss-release.')) {
      const env = fields(r.environment);
      const release = fields(firstStr(at(r, 'release', 'name')) ? r.release : at(r, 'deployment', 'release'));
      return Object.assign({}, common, {
        repository: firstStr(at(r, 'project', 'name'), project),
        pipeline: firstStr(at(release, 'releaseDefinition', 'name'), at(r, 'releaseDefinition', 'name')),
        job: str(env.name) ? `stage ${str(env.name)}` : undefined,
        number: str(release.name),
        rawStatus: firstStr(env.status, at(r, 'deployment', 'deploymentStatus'), event.includes('started') ? 'inProgress' : undefined, event.slice(15)),
        actor: firstStr(at(release, 'createdBy', 'displayName'), at(r, 'deployment', 'requestedFor', 'displayName')),
        url: firstStr(at(release, '_links', 'web', 'href'), at(r, 'url')),
      });
    }
    if (event?.startsWith('ms.vss-pipelines.')) {
      const run = fields(r.run);
      const stage = isFields(r.stage) ? r.stage : isFields(r.job) ? r.job : undefined;
      return Object.assign({}, common, {
        repository: project,
        pipeline: firstStr(at(r, 'pipeline', 'name'), at(run, 'pipeline', 'name')),
        job: str(stage?.name),
        number: firstStr(run.name, run.id),
        rawStatus: firstStr(stage?.result, stage?.state, run.result, run.state),
        durationSeconds: secondsBetween(run.createdDate, run.finishedDate),
        url: firstStr(at(run, '_links', 'web', 'href'), run.url),
      });
    }
    // build.complete: sourceGetVersion reads "LG:refs/heads/master:<sha>" on older servers.
    const version = str(r.sourceGetVersion)?.split(':');
    return Object.assign({}, common, {
      repository: firstStr(at(r, 'repository', 'name'), project),
      pipeline: textAt(r, 'definition', 'name'),
      number: firstStr(r.buildNumber, r.id),
      rawStatus: firstStr(r.result, r.status),
      branch: branchName(firstStr(r.sourceBranch, version?.[1])),
      sha: firstStr(r.sourceVersion, version?.[2]),
      actor: firstStr(at(r, 'requestedFor', 'displayName'), at(list(r.requests)[0], 'requestedFor', 'displayName'), at(r, 'lastChangedBy', 'displayName')),
      durationSeconds: secondsBetween(r.startTime, r.finishTime),
      url: firstStr(at(r, '_links', 'web', 'href'), r.url),
    });
  },
};

const bitbucket: CiReader = {
  system: 'bitbucket',
  name: 'Bitbucket',
  matches: (p, h) => isFields(p.commit_status) || (header(h, 'x-event-key') ?? '').startsWith('repo:commit_status'),
  read(p, h) {
    const s = fields(p.commit_status);
    return {
      system: 'bitbucket',
      event: firstStr(header(h, 'x-event-key'), 'repo:commit_status'),
      repository: firstStr(at(p, 'repository', 'full_name'), at(s, 'repository', 'full_name'), at(p, 'repository', 'name')),
      pipeline: str(s.name),
      number: str(s.key),
      rawStatus: str(s.state),
      branch: str(s.refname),
      sha: textAt(s, 'commit', 'hash'),
      message: textAt(s, 'commit', 'message'),
      actor: firstStr(userName(at(s, 'commit', 'author', 'user')), userName(p.actor)),
      durationSeconds: secondsBetween(s.created_on, s.state === 'INPROGRESS' ? undefined : s.updated_on),
      url: str(s.url),
      details: str(s.description) ? [str(s.description)!] : undefined,
    };
  },
};

const teamcity: CiReader = {
  system: 'teamcity',
  name: 'TeamCity',
  matches: (p) => isFields(p.build) && (at(p, 'build', 'buildResult') !== undefined || at(p, 'build', 'buildTypeId') !== undefined),
  read(p) {
    const b = fields(p.build);
    const notify = str(b.notifyType);
    const status: CiStatus | undefined =
      notify === 'buildStarted' ? 'running' : notify === 'buildInterrupted' ? 'canceled' : undefined;
    return {
      system: 'teamcity',
      event: notify,
      repository: str(b.projectName),
      pipeline: firstStr(b.buildFullName, b.buildName),
      number: str(b.buildNumber),
      rawStatus: firstStr(b.buildResult, notify),
      status,
      branch: firstStr(b.branchDisplayName, b.branchName),
      sha: textAt(list(b.buildChanges)[0], 'version'),
      actor: str(b.triggeredBy),
      url: firstStr(b.buildStatusUrl, b.buildLink),
      details: firstStr(b.buildStatus) ? [str(b.buildStatus)!] : undefined,
    };
  },
};

const JENKINS_RUNNING = new Set(['QUEUED', 'STARTED']);

const jenkins: CiReader = {
  system: 'jenkins',
  name: 'Jenkins',
  matches: (p) =>
    isFields(p.build) && (str(at(p, 'build', 'phase')) !== undefined || (str(p.name) !== undefined && str(p.url) !== undefined)),
  read(p) {
    const b = fields(p.build);
    const phase = str(b.phase);
    const status = str(b.status);
    const ms = num(b.duration);
    return {
      system: 'jenkins',
      event: phase,
      repository: textAt(b, 'scm', 'url'),
      pipeline: firstStr(p.display_name, p.name),
      number: str(b.number),
      rawStatus: status ?? phase,
      // A finished phase without a status word says nothing about the outcome.
      status: status === undefined ? (phase && JENKINS_RUNNING.has(phase) ? 'running' : 'other') : undefined,
      branch: branchName(textAt(b, 'scm', 'branch')),
      sha: textAt(b, 'scm', 'commit'),
      durationSeconds: ms === undefined ? undefined : ms / 1000,
      url: firstStr(b.full_url, b.url, p.url),
    };
  },
};

const TRAVIS_NUMERIC: Readonly<Record<string, CiStatus>> = { '0': 'succeeded', '1': 'failed' };

const travis: CiReader = {
  system: 'travis',
  name: 'Travis CI',
  matches: (p) => Array.isArray(p.matrix) || (p.status_message !== undefined && (p.build_url !== undefined || p.number !== undefined)),
  read(p) {
    const word = firstStr(p.status_message, p.state, p.result_message);
    const owner = textAt(p, 'repository', 'owner_name');
    const name = textAt(p, 'repository', 'name');
    const code = str(p.status) ?? str(p.result);
    return {
      system: 'travis',
      event: str(p.type),
      repository: owner && name ? `${owner}/${name}` : name,
      number: str(p.number),
      rawStatus: word ?? code,
      status: word === undefined && code !== undefined ? (lookup(TRAVIS_NUMERIC, code) ?? 'other') : undefined,
      branch: str(p.branch),
      tag: str(p.tag),
      sha: str(p.commit),
      message: str(p.message),
      actor: firstStr(p.author_name, p.committer_name),
      durationSeconds: num(p.duration),
      url: str(p.build_url),
      details: str(p.pull_request_number) ? [`Pull request #${str(p.pull_request_number)}`] : undefined,
    };
  },
};

const semaphore: CiReader = {
  system: 'semaphore',
  name: 'Semaphore',
  matches: (p) =>
    (isFields(p.pipeline) && isFields(p.revision)) || (str(p.branch_name) !== undefined && p.build_number !== undefined) || p.project_hash_id !== undefined,
  read(p) {
    if (!isFields(p.pipeline)) {
      // Classic Semaphore: a build, or a deploy of a build to a server (`event: deploy`).
      const deploy = str(p.event) === 'deploy';
      const server = str(p.server_name);
      return {
        system: 'semaphore',
        event: str(p.event),
        repository: str(p.project_name),
        pipeline: deploy ? `Deploy${server ? ` to ${server}` : ''}` : undefined,
        number: deploy ? str(p.number) : str(p.build_number),
        rawStatus: str(p.result),
        branch: str(p.branch_name),
        sha: textAt(p, 'commit', 'id'),
        message: textAt(p, 'commit', 'message'),
        actor: textAt(p, 'commit', 'author_name'),
        durationSeconds: secondsBetween(p.started_at, p.finished_at),
        url: firstStr(deploy ? p.html_url : undefined, p.build_url, p.html_url),
        details: deploy ? detailLines([['Deploy target', server], ['Build', str(p.build_number)], ['Build URL', str(p.build_html_url)]]) : undefined,
      };
    }
    const pipeline = p.pipeline;
    const revision = fields(p.revision);
    const state = str(pipeline.state);
    const org = textAt(p, 'organization', 'name');
    const workflowId = textAt(p, 'workflow', 'id');
    const blocks = list(p.blocks)
      .slice(0, 20)
      .map((b) => `- ${textAt(b, 'name') ?? '(block)'}: ${textAt(b, 'result') ?? textAt(b, 'state') ?? 'unknown'}`);
    const ref = parseRef(str(revision.reference));
    const pr = isFields(revision.pull_request) ? revision.pull_request : undefined;
    const prLine = pr ? `Pull request #${str(pr.number) ?? '?'}${str(pr.name) ? `: ${str(pr.name)}` : ''}` : undefined;
    return {
      system: 'semaphore',
      event: 'pipeline',
      repository: firstStr(at(p, 'repository', 'slug'), at(p, 'project', 'name')),
      pipeline: firstStr(pipeline.name, at(p, 'project', 'name')),
      rawStatus: state === 'done' ? firstStr(pipeline.result, state) : state,
      branch: firstStr(at(revision, 'branch', 'name'), pr?.branch_name, ref.type === 'branch' ? ref.name : undefined),
      tag: firstStr(at(revision, 'tag', 'name'), ref.type === 'tag' ? ref.name : undefined),
      sha: str(revision.commit_sha),
      message: str(revision.commit_message),
      actor: textAt(revision, 'sender', 'login'),
      durationSeconds: secondsBetween(pipeline.running_at, pipeline.done_at),
      url: org && workflowId ? `https://${org}.semaphoreci.com/workflows/${workflowId}` : undefined,
      details: [...(prLine ? [prLine] : []), ...(blocks.length > 0 ? ['Blocks:', ...blocks] : [])],
    };
  },
};

const codeship: CiReader = {
  system: 'codeship',
  name: 'Codeship',
  matches: (p) => isFields(p.build) && (at(p, 'build', 'project_full_name') !== undefined || at(p, 'build', 'short_commit_id') !== undefined),
  read(p) {
    const b = fields(p.build);
    return {
      system: 'codeship',
      repository: firstStr(b.project_full_name, b.project_name),
      number: firstStr(b.build_id, b.uuid),
      rawStatus: str(b.status),
      branch: str(b.branch),
      sha: str(b.commit_id),
      message: str(b.message),
      actor: str(b.committer),
      durationSeconds: secondsBetween(b.started_at, b.finished_at),
      url: firstStr(b.build_url, b.commit_url),
    };
  },
};

const drone: CiReader = {
  system: 'drone',
  name: 'Drone',
  matches: (p) =>
    ((isFields(p.build) || isFields(p.pipeline)) && isFields(p.repo)) ||
    (isFields(p.commit) && at(p, 'commit', 'status') !== undefined && (p.from_url !== undefined || isFields(p.repository))),
  read(p) {
    if (!isFields(p.repo)) {
      const c = fields(p.commit);
      const host = textAt(p, 'repository', 'host');
      const owner = textAt(p, 'repository', 'owner');
      const name = textAt(p, 'repository', 'name');
      return {
        system: 'drone',
        repository: [host, owner, name].filter((s) => s !== undefined).join('/') || undefined,
        rawStatus: str(c.status),
        branch: str(c.branch),
        sha: str(c.sha),
        message: str(c.message),
        actor: str(c.author),
        durationSeconds: num(c.duration),
        url: str(p.from_url),
      };
    }
    // Woodpecker's webhook plugins send `pipeline`, Drone's webhooks `build`.
    const woodpecker = isFields(p.pipeline);
    const b = fields(woodpecker ? p.pipeline : p.build);
    const repo = fields(p.repo);
    return {
      system: woodpecker ? 'woodpecker' : 'drone',
      event: firstStr(b.event, p.event),
      repository: firstStr(repo.full_name, repo.slug, str(repo.owner) && str(repo.name) ? `${str(repo.owner)}/${str(repo.name)}` : undefined, repo.name),
      number: str(b.number),
      rawStatus: str(b.status),
      ...refFacts(firstStr(b.ref, b.branch, b.target), false),
      sha: firstStr(b.commit, b.after),
      message: str(b.message),
      actor: firstStr(b.author, b.author_login, b.sender),
      durationSeconds: secondsBetween(b.started, b.finished),
      url: firstStr(b.link, b.forge_url, b.link_url),
    };
  },
};

const buildbot: CiReader = {
  system: 'buildbot',
  name: 'Buildbot',
  matches: (p) => p.buildid !== undefined || (p.builderid !== undefined && p.number !== undefined) || (p.results !== undefined && p.state_string !== undefined),
  read(p) {
    const props = fields(p.properties);
    // Properties are [value, source] pairs.
    const prop = (name: string): string | undefined => firstStr(list(props[name])[0], props[name]);
    const code = num(p.results);
    const word = code === undefined ? undefined : BUILDBOT_RESULTS[code];
    const complete = p.complete !== false && code !== undefined;
    return {
      system: 'buildbot',
      // HttpStatusPush sends buildername/project/buildid at the top; the data API nests them.
      repository: firstStr(prop('project'), p.project, prop('repository')),
      pipeline: firstStr(at(p, 'builder', 'name'), p.buildername, prop('buildername')),
      number: firstStr(p.number, p.buildid),
      event: str(p.event),
      rawStatus: complete ? (word ?? str(p.state_string)) : firstStr(p.state_string, 'running'),
      status: complete ? undefined : 'running',
      branch: prop('branch'),
      sha: prop('got_revision') ?? prop('revision'),
      actor: firstStr(list(p.owners)[0], prop('owner')),
      durationSeconds: secondsBetween(p.started_at, p.complete_at),
      url: str(p.url),
      details: str(p.state_string) ? [`State: ${str(p.state_string)}`] : undefined,
    };
  },
};

/** AppVeyor: `eventName` (build_success…) and `eventData` with status, project, branch, build number and URL. */
const appveyor: CiReader = {
  system: 'appveyor',
  name: 'AppVeyor',
  matches: (p) => str(p.eventName) !== undefined && isFields(p.eventData),
  read(p) {
    const d = fields(p.eventData);
    // The event name is what fired the notification (build_success, build_failed…); the data's
    // status comes second (AppVeyor's own failure sample carries a copied "Success").
    const event = str(p.eventName) ?? '';
    const byEvent: CiStatus | undefined = event.includes('fail') ? 'failed' : event.includes('success') ? 'succeeded' : undefined;
    const byData = normalizeCiStatus(str(d.status));
    const passed = d.passed === true ? 'succeeded' : d.failed === true ? 'failed' : undefined;
    return {
      system: 'appveyor',
      event: str(p.eventName),
      repository: firstStr(d.repositoryName, d.projectName),
      pipeline: str(d.projectName),
      number: firstStr(d.buildVersion, d.buildNumber),
      rawStatus: firstStr(p.eventName, d.status),
      status: byEvent ?? (byData !== 'other' ? byData : passed),
      branch: str(d.branch),
      sha: str(d.commitId),
      message: firstStr(d.commitMessage, d.commitMessageExtended),
      actor: firstStr(d.commitAuthor, d.committerName),
      url: str(d.buildUrl),
      details: str(d.duration) ? [`Duration: ${str(d.duration)}`] : undefined,
    };
  },
};

/** Snap CI: `build_result` of a stage; the project name carries the branch in parentheses. */
const snapci: CiReader = {
  system: 'snapci',
  name: 'Snap CI',
  matches: (p) => str(p.build_result) !== undefined && str(p.project_name) !== undefined,
  read(p) {
    const project = str(p.project_name)!;
    // "owner/repo (branch)": split with indexes, no regex over the payload.
    const open = project.endsWith(')') ? project.lastIndexOf(' (') : -1;
    return {
      system: 'snapci',
      repository: open === -1 ? project : project.slice(0, open),
      pipeline: str(p.stage_name),
      number: str(p.counter),
      rawStatus: str(p.build_result),
      branch: open === -1 ? undefined : project.slice(open + 2, -1),
      url: str(p.build_url),
    };
  },
};

/**
 * Drone 0.4's webhook notifier posts only a message:
 * "Drone [owner/repo](url) (branch) [status](build url) (sha7)". Read by walking brackets.
 */
const drone04: CiReader = {
  system: 'drone',
  name: 'Drone',
  matches: (p) => (str(p.message) ?? '').startsWith('Drone [') && (p.icon !== undefined || p.errorLevel !== undefined),
  read(p) {
    const parts = bracketParts(str(p.message)!.slice('Drone '.length));
    const [repo, branch, status, sha] = [parts[0], parts[1], parts[2], parts[3]];
    return {
      system: 'drone',
      repository: repo?.text,
      rawStatus: status?.text,
      branch: branch?.text,
      sha: sha?.text,
      url: firstStr(status?.link, repo?.link),
    };
  },
};

/** `[text](link)` and `(text)` pieces of a one-line message, in order; linear in its length. */
function bracketParts(message: string): Array<{ text: string; link?: string }> {
  const parts: Array<{ text: string; link?: string }> = [];
  let i = 0;
  while (i < message.length && parts.length < 8) {
    const ch = message[i];
    if (ch === '[') {
      const close = message.indexOf('](', i);
      if (close === -1) break;
      const end = message.indexOf(')', close + 2);
      if (end === -1) break;
      parts.push({ text: message.slice(i + 1, close), link: message.slice(close + 2, end) });
      i = end + 1;
    } else if (ch === '(') {
      const end = message.indexOf(')', i);
      if (end === -1) break;
      parts.push({ text: message.slice(i + 1, end) });
      i = end + 1;
    } else i += 1;
  }
  return parts;
}

export const CI_READERS: readonly CiReader[] = [
  github,
  gitlab,
  buildkite,
  circleci,
  azure,
  bitbucket,
  teamcity,
  jenkins,
  travis,
  semaphore,
  codeship,
  drone,
  buildbot,
  appveyor,
  snapci,
  drone04,
];

/** Known forges whose non-CI events (push, issues…) were posted to ci-build. */
export function unsupportedCiEvent(p: Fields, headers: Headers): CiUnsupported | undefined {
  const gh = header(headers, 'x-github-event');
  if (gh && !GITHUB_CI_EVENTS.includes(gh)) return { system: 'github', name: 'GitHub', event: gh };
  const gl = header(headers, 'x-gitlab-event');
  if (gl && !gitlab.matches(p, headers)) return { system: 'gitlab', name: 'GitLab', event: str(p.object_kind) ?? gl };
  const bb = header(headers, 'x-event-key');
  if (bb && !bb.startsWith('repo:commit_status')) return { system: 'bitbucket', name: 'Bitbucket', event: bb };
  return undefined;
}

const NESTS = ['build', 'pipeline', 'workflow', 'job', 'run', 'data', 'object_attributes', 'resource', 'payload', 'attributes'];

/** An unknown shape: common field names at the top level and one level down, never deeper. */
export function genericCiBuild(p: Fields): CiBuild {
  const scopes: Fields[] = [p, ...NESTS.map((n) => p[n]).filter(isFields)];
  const pick = (...names: string[]): string | undefined => {
    for (const scope of scopes) for (const name of names) {
      const value = firstStr(scope[name], at(scope[name], 'full_name'), at(scope[name], 'name'), at(scope[name], 'slug'));
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const commit = pick('sha', 'commit_sha', 'commit_id', 'revision', 'commit', 'head_sha');
  return {
    system: 'unknown',
    event: firstStr(p.event, p.type, p.event_type, p.eventType),
    repository: pick('repository', 'repo', 'project', 'project_name', 'repository_name'),
    pipeline: pick('pipeline', 'workflow', 'pipeline_name', 'workflow_name', 'job_name', 'name'),
    number: pick('build_number', 'buildNumber', 'build_num', 'run_number', 'number', 'build_id', 'id'),
    rawStatus: pick('conclusion', 'result', 'status', 'state', 'outcome', 'phase'),
    ...refFacts(pick('branch', 'branch_name', 'ref', 'head_branch'), false),
    sha: commit,
    message: pick('commit_message', 'message'),
    actor: pick('author', 'actor', 'user', 'committer', 'triggered_by', 'sender'),
    durationSeconds: num(pick('duration', 'duration_seconds')),
    url: pick('url', 'build_url', 'html_url', 'web_url', 'link', 'target_url', 'details_url'),
    details: [plural(Object.keys(p).length, 'top-level field') + ' in an unrecognized CI format'],
  };
}

/** `Label: value` detail lines for the defined values (renderBuild makes them Markdown). */
function detailLines(facts: ReadonlyArray<readonly [string, string | undefined]>): string[] {
  return facts.filter(([, v]) => v !== undefined && v !== '').map(([label, v]) => `${label}: ${v}`);
}
