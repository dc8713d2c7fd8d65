import { describe, expect, it } from '@jest/globals';
import { ciBuild } from './ci-build.js';
import { normalizeCiStatus } from './ci-status.js';
import { expectFixtureRenderings, fixture, renderFixture, type Expectation } from './__tests__/fixtures.js';

const render = (file: string, withHeaders = true) => renderFixture(ciBuild, file, withHeaders);

const EXPECTED: Expectation[] = [
  {
    file: 'github-workflow_run-completed_success.json',
    title: '[octo-org/octo-repo] GitHub Actions test #163 succeeded (success) on master',
    content: ['**CI system:** GitHub Actions', '**Pipeline:** test', '**Build:** 163', '**Status:** succeeded (success)', '**Branch:** `master`', '**Commit:** `3484a3f` build(test): check workflow run event payload'],
    metadata: { sender: 'github', event: 'workflow_run', status: 'succeeded', sender_status: 'success', build_number: '163' },
  },
  {
    file: 'github-workflow_run-requested.json',
    title: '[octo-org/octo-repo] GitHub Actions test #163 is running (queued) on master',
    content: ['**Status:** running (queued)'],
    metadata: { status: 'running', sender_status: 'queued' },
  },
  {
    file: 'github-check_suite-completed_success.json',
    title: '[Codertocat/Hello-World] GitHub checks octocoders-linter succeeded (success) on changes',
    content: ['**Branch:** `changes`', '**Commit:** `ec26c3e` Update README.md'],
    metadata: { event: 'check_suite', status: 'succeeded' },
  },
  {
    file: 'github-check_run-completed_failure.json',
    title: '[Codertocat/Hello-World] GitHub checks Octocoders-linter failed (failure) on changes',
    content: ['**Status:** failed (failure)', '**Check app:** octocoders-linter'],
    metadata: { event: 'check_run', status: 'failed', sender_status: 'failure' },
  },
  {
    file: 'github-workflow_job-completed_failure.json',
    title: '[Codertocat/Hello-World] GitHub Actions CodeQL / linters #2202229078 failed (failure) on main',
    content: ['**Job:** linters', '**Duration:** 3m 18s', '**Failed steps:** Run yarn run format-check'],
    metadata: { event: 'workflow_job', job: 'linters', status: 'failed', duration_seconds: 198 },
  },
  {
    file: 'gitlab-pipeline-success.json',
    title: '[gitlab-org/gitlab-test] GitLab CI Pipeline for branch: master #3 succeeded (success) on master',
    content: ['**Duration:** 1m 3s', '**Jobs:**\n- production \\[deploy\\]: skipped', '**By:** root'],
    metadata: { sender: 'gitlab', event: 'pipeline', status: 'succeeded', duration_seconds: 63, branch: 'master' },
  },
  {
    file: 'gitlab-pipeline-pending.json',
    title: '[TomaszKolek/my-awesome-project] GitLab CI pipeline #4414206 is running (pending) on master',
    content: ['- job\\_name2 \\[test\\]: pending', '- job\\_name \\[test\\]: created'],
    metadata: { status: 'running', sender_status: 'pending' },
  },
  {
    file: 'gitlab-job-created.json',
    title: '[gitlab-org/gitlab-test] GitLab CI pipeline 2366 / test (stage test) #1977 is running (created) on gitlab-script-trigger',
    content: ['**Job:** test (stage test)', '**Commit:** `2293ada` test'],
    metadata: { event: 'build', build_number: '1977', status: 'running', sender_status: 'created' },
  },
  {
    file: 'jenkins-notification-started.json',
    title: 'Jenkins webhooks-handler #6 is running (STARTED)',
    content: ['**CI system:** Jenkins', '**Build:** 6'],
    metadata: { sender: 'jenkins', status: 'running', sender_status: 'STARTED' },
  },
  {
    file: 'jenkins-notification-finished_success.json',
    title: 'Jenkins webhooks-handler #6 succeeded (SUCCESS)',
    content: ['**Status:** succeeded (SUCCESS)', '**URL:** <http://beta-internal:8080/job/webhooks-handler/6/>'],
    metadata: { status: 'succeeded', event: 'FINISHED' },
  },
  {
    file: 'jenkins-notification-finalized_with_scm.json',
    title: '[git@github.com:org/repo.git] Jenkins myjob #93 succeeded (SUCCESS) on origin/master',
    content: ['**Commit:** `88c34b3`'],
    metadata: { status: 'succeeded', event: 'FINALIZED', sha: '88c34b37a0861c3d19766fb5992c8de7111a62e5' },
  },
  {
    file: 'circleci-workflow_completed-github.json',
    title: '[zulip-testing/circleci-webhook-test] CircleCI sample #4 succeeded (success) on main',
    content: ['**Commit:** `a5e30a9` .circleci: Update Webhook URL.', '**By:** Hari Prashant Bhimaraju'],
    metadata: { sender: 'circleci', event: 'workflow-completed', status: 'succeeded' },
  },
  {
    file: 'circleci-job_completed-github.json',
    title: '[zulip-testing/circleci-webhook-test] CircleCI sample / build-and-test #6 succeeded (success) on main',
    content: ['**Job:** build-and-test'],
    metadata: { event: 'job-completed', job: 'build-and-test', build_number: '6' },
  },
  {
    file: 'circleci-workflow_completed-gitlab.json',
    title: '[zulip-testing/circleci-webhook-test] CircleCI sample #3 succeeded (success) on main',
    content: ['**Commit:** `c31f869` app: Enhance message within hello().'],
    metadata: { sha: 'c31f86994c54672f97b5bd5e544315b7bd40e4c1' },
  },
  {
    file: 'circleci_v1-build-failed.json',
    title: '[circleci/mongofinil] CircleCI #22 failed on master',
    content: ['**Status:** failed', '**Duration:** 23.5s', '**By:** Allen Rohner'],
    metadata: { status: 'failed', sender_status: 'failed', build_number: '22' },
  },
  {
    file: 'travis-build-passed.json',
    title: '[hl7-fhir/fhir-svn] Travis CI #4601 succeeded (Passed) on master',
    content: ['**Duration:** 17m 3s', '**URL:** <https://travis-ci.org/hl7-fhir/fhir-svn/builds/92495257>'],
    metadata: { sender: 'travis', status: 'succeeded', sender_status: 'Passed', duration_seconds: 1023 },
  },
  {
    file: 'azuredevops-build.complete-succeeded.json',
    title: 'Azure DevOps ConsumerAddressModule #ConsumerAddressModule_20150407.1 succeeded on master',
    content: ['**Status:** succeeded', '**Commit:** `600c52d`', '**By:** Normal Paulk', '**Duration:** 2m 4s'],
    metadata: { sender: 'azure-devops', event: 'build.complete', status: 'succeeded', branch: 'master' },
  },
  {
    file: 'bitbucket-commit_status-pipeline_inprogress.json',
    title: '[automationtestharness/testrepo] Bitbucket Pipeline #4 for main #3343801 is running (INPROGRESS) on main',
    content: ['**Commit:** `bdf6fac` Merged in Shivam-Negi/testyaml-edited-online'],
    metadata: { sender: 'bitbucket', status: 'running', sender_status: 'INPROGRESS' },
  },
  {
    file: 'teamcity-build-success.json',
    title: '[Project] TeamCity Project :: Compile #5535 - CL 123456 succeeded (success)',
    content: ['**URL:** <http://teamcity/viewLog.html?buildTypeId=Project_Compile&buildId=19952>', '**Tests passed:** 27'],
    metadata: { sender: 'teamcity', status: 'succeeded', event: 'buildFinished' },
  },
  {
    file: 'semaphore-pipeline-stopped.json',
    title: '[renderedtext/notifications] Semaphore Notifications was canceled (stopped) on rw/webhook_impl',
    content: ['Blocks:', '- List & Test & Build: stopped'],
    metadata: { sender: 'semaphore', status: 'canceled', sender_status: 'stopped' },
  },
  {
    file: 'semaphore_classic-build-passed.json',
    title: '[knighthood] Semaphore #314 succeeded (passed) on master',
    content: ['**Commit:** `a490b8d` Create user account for Rocinante', '**Duration:** 11s'],
    metadata: { sender: 'semaphore', status: 'succeeded', build_number: '314' },
  },
  {
    file: 'codeship-build-success.json',
    title: '[codeship/docs] Codeship #973711 succeeded (success) on master',
    content: ['**By:** beanieboi'],
    metadata: { sender: 'codeship', status: 'succeeded' },
  },
  {
    file: 'drone_legacy-build-commit_success.json',
    title: '[github.com/foo/bar] Drone succeeded (Success) on master',
    content: ['**Duration:** 3m 30s', '**Commit:** `9f2849d` Update the Readme'],
    metadata: { sender: 'drone', status: 'succeeded', duration_seconds: 210 },
  },
];

describe('ci-build on the shared fixtures', () => {
  expectFixtureRenderings(ciBuild, EXPECTED);
  it.each(EXPECTED)('$file keeps its title without headers', ({ file }) => {
    expect(ciBuild.render(fixture(file).payload, {}).title).toBe(render(file).title);
  });
});

describe('ci-build senders without shared fixtures', () => {
  it('Buildkite build.finished', () => {
    const r = ciBuild.render(
      {
        event: 'build.finished',
        build: { number: 42, state: 'failed', branch: 'main', commit: 'abcdef0123456789', message: 'Fix it', web_url: 'https://buildkite.com/acme/app/builds/42', creator: { name: 'Keith' }, started_at: '2024-01-01T00:00:00Z', finished_at: '2024-01-01T00:02:30Z' },
        pipeline: { name: 'App', slug: 'app', repository: 'git@github.com:acme/app.git' },
        sender: { name: 'Keith' },
      },
      { 'x-buildkite-event': 'build.finished' },
    );
    expect(r.title).toBe('[git@github.com:acme/app.git] Buildkite App #42 failed on main');
    expect(r.content).toContain('**Duration:** 2m 30s');
    expect(r.extra_metadata).toMatchObject({ sender: 'buildkite', event: 'build.finished', status: 'failed', url: 'https://buildkite.com/acme/app/builds/42' });
  });

  it('Buildbot numeric results (2 = failure) and its [value, source] properties', () => {
    const r = ciBuild.render(
      { buildid: 9, number: 17, builderid: 2, builder: { name: 'runtests' }, results: 2, complete: true, state_string: 'failed test', started_at: 1700000000, complete_at: 1700000090, url: 'http://bb/#/builders/2/builds/17', properties: { branch: ['dev', 'Build'], revision: ['0123456789abcdef', 'Build'], project: ['proj', 'Build'] } },
      {},
    );
    expect(r.title).toBe('[proj] Buildbot runtests #17 failed (failure) on dev');
    expect(r.content).toContain('**Duration:** 1m 30s');
    expect(r.extra_metadata).toMatchObject({ sender: 'buildbot', status: 'failed', sha: '0123456789abcdef' });
  });

  it('Buildbot build still running', () => {
    expect(ciBuild.render({ buildid: 1, number: 1, builderid: 1, results: null, complete: false, state_string: 'building' }, {}).extra_metadata.status).toBe('running');
  });

  it('Drone 1.x webhook', () => {
    const r = ciBuild.render(
      { event: 'build', action: 'updated', repo: { slug: 'octocat/hello-world' }, build: { number: 5, status: 'killed', event: 'push', target: 'master', after: 'deadbeefcafe', message: 'msg', author_login: 'octocat', started: 1700000000, finished: 1700000010, link: 'https://github.com/octocat/hello-world/compare/a...b' } },
      {},
    );
    expect(r.title).toBe('[octocat/hello-world] Drone #5 was canceled (killed) on master');
  });

  it('Woodpecker webhook (pipeline object)', () => {
    const r = ciBuild.render({ repo: { full_name: 'wp/repo' }, pipeline: { number: 3, status: 'success', branch: 'main', commit: 'abc1234def', forge_url: 'https://ci/wp/repo/3' } }, {});
    expect(r.title).toBe('[wp/repo] Woodpecker #3 succeeded (success) on main');
    expect(r.extra_metadata.sender).toBe('woodpecker');
  });

  it('Azure DevOps release deployment completed (rejected = failed)', () => {
    const r = ciBuild.render(
      {
        eventType: 'ms.vss-release.deployment-completed-event',
        publisherId: 'rm',
        message: { text: 'Deployment of release Release-5 on environment Prod Rejected.' },
        resource: {
          environment: { name: 'Prod', status: 'rejected' },
          deployment: { release: { name: 'Release-5', releaseDefinition: { name: 'Web' }, _links: { web: { href: 'https://dev.azure.com/r/5' } } } },
          project: { name: 'Fabrikam' },
        },
      },
      {},
    );
    expect(r.title).toBe('[Fabrikam] Azure DevOps Web / stage Prod #Release-5 failed (rejected)');
  });

  it('Travis numeric status without a word', () => {
    const r = ciBuild.render({ number: '7', status: 1, build_url: 'https://travis/7', branch: 'x', matrix: [] }, {});
    expect(r.extra_metadata).toMatchObject({ sender: 'travis', status: 'failed' });
  });

  it('a GitHub push posted to ci-build is an unsupported event, not an empty title', () => {
    const f = fixture('github-push-one_commit.json');
    const r = ciBuild.render(f.payload, f.headers);
    expect(r.unsupported_event).toBe('push');
    expect(r.title).toBe('[Codertocat/Hello-World] GitHub event `push` by Codertocat');
  });

  it('falls back to common field names for an unknown CI shape', () => {
    const r = ciBuild.render({ project: 'acme', pipeline: { name: 'deploy' }, build_number: 12, state: 'Errored', ref: 'refs/heads/main', url: 'https://ci/12' }, {});
    expect(r.title).toBe('[acme] CI deploy #12 failed (Errored) on main');
    expect(r.extra_metadata).toMatchObject({ sender: 'unknown', status: 'failed', build_number: '12', url: 'https://ci/12' });
  });

  it('an empty object still gets an informative title', () => {
    expect(ciBuild.render({}, {}).title).toBe('CI event (status unknown)');
  });
});

describe('CI status vocabulary', () => {
  it.each([
    ['SUCCESS', 'succeeded'],
    ['passed', 'succeeded'],
    ['Fixed', 'succeeded'],
    ['FAILURE', 'failed'],
    ['Still Failing', 'failed'],
    ['timed_out', 'failed'],
    ['UNSTABLE', 'failed'],
    ['in_progress', 'running'],
    ['INPROGRESS', 'running'],
    ['queued', 'running'],
    ['cancelled', 'canceled'],
    ['ABORTED', 'canceled'],
    ['stopped', 'canceled'],
    ['neutral', 'other'],
    ['skipped', 'other'],
    ['manual', 'other'],
  ])('%s → %s', (word, status) => {
    expect(normalizeCiStatus(word)).toBe(status);
  });
});
