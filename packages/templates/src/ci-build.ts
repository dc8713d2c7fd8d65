import { fields, isFields, str } from './field-access.js';
import { renderPing } from './forge-event.js';
import { CI_READERS, genericCiBuild, unsupportedCiEvent, type CiBuild } from './ci-senders.js';
import { normalizeCiStatus } from './ci-status.js';
import { actorName, header, repositoryName } from './forge-sender.js';
import { extraMetadata, repoPrefix, result, unsupportedEvent, type MetadataBase } from './template-result.js';
import { code, escapeMd, factValue, Md } from './markdown.js';
import { factLines, firstLine, humanDuration, oneLine, sha7 } from './text-format.js';
import type { Headers, Template, TemplateResult } from './types.js';
import { t, type Locale } from './locale.js';

export const CI_BUILD_VERSION = 3;

export const ciBuild: Template = {
  id: 'ci-build',
  title: 'CI build',
  description:
    'Build, pipeline, workflow and job events from CI systems: system, project, pipeline, build number, status, branch, commit, duration, link.',
  senders: [
    'GitHub Actions',
    'GitLab CI',
    'Jenkins',
    'CircleCI',
    'Travis CI',
    'Azure DevOps',
    'Bitbucket',
    'TeamCity',
    'Semaphore',
    'Codeship',
    'Drone',
    'Woodpecker',
    'Buildbot',
    'Buildkite',
  ],
  render(payload: unknown, headers: Headers, locale: Locale = 'en'): TemplateResult {
    const p = fields(payload);
    // A GitHub webhook for checks or workflows gets a ping when it is set up, like every other.
    const gh = header(headers, 'x-github-event');
    if (gh === 'ping' || (gh === undefined && str(p.zen) !== undefined && (isFields(p.hook) || p.hook_id !== undefined))) {
      return renderPing(payload, 'github', { template: 'ci-build', template_version: CI_BUILD_VERSION, sender: 'github', event: 'ping', locale });
    }
    const reader = CI_READERS.find((r) => r.matches(p, headers));
    if (!reader) {
      const unsupported = unsupportedCiEvent(p, headers);
      if (unsupported) {
        return unsupportedEvent(
          { template: 'ci-build', template_version: CI_BUILD_VERSION, sender: unsupported.system, event: unsupported.event, locale },
          unsupported.name,
          { repository: repositoryName(payload, unsupported.system), actor: actorName(payload, unsupported.system), payload },
        );
      }
    }
    const build = reader ? reader.read(p, headers) : genericCiBuild(p);
    return renderBuild(build, systemName(build, reader?.name), locale);
  },
};

const STATUS_TITLE_WORDS = { succeeded: 'succeeded', failed: 'failed', running: 'is running', canceled: 'was canceled', other: 'reported' } as const;

function systemName(build: CiBuild, readerName: string | undefined): string {
  if (build.system === 'woodpecker') return 'Woodpecker';
  if (build.system === 'github' && build.event !== 'workflow_run' && build.event !== 'workflow_job') return 'GitHub checks';
  return readerName ?? 'CI';
}

function renderBuild(build: CiBuild, system: string, locale: Locale): TemplateResult {
  const status = build.status ?? normalizeCiStatus(build.rawStatus);
  const raw = build.rawStatus ? oneLine(build.rawStatus, 40) : undefined;
  const rawNote = raw && raw.toLowerCase() !== status ? ` (${raw})` : '';
  const what = [build.pipeline, build.job].filter((s) => s !== undefined).map((s) => oneLine(s, 80)).join(' / ');
  const ref = build.tag ? `tag ${build.tag}` : build.branch;
  const statusWord =
    status !== 'other' ? `${t(locale, STATUS_TITLE_WORDS[status])}${rawNote}` : raw ? t(locale, 'reported {status}', { status: raw }) : t(locale, 'event (status unknown)');
  const title =
    `${repoPrefix(build.repository)}${system}${what ? ` ${what}` : ''}${build.number ? ` #${oneLine(build.number, 40)}` : ''} ` +
    `${statusWord}${ref ? t(locale, ' on {ref}', { ref: oneLine(ref, 80) }) : ''}`;
  const lines = factLines(
    [
    ['CI system', system],
    ['Repository', build.repository],
    ['Pipeline', build.pipeline],
    ['Job', build.job],
    ['Build', build.number],
    ['Status', `${t(locale, status)}${rawNote}`],
    ['Event', build.event],
    [build.tag ? 'Tag' : 'Branch', build.tag ?? build.branch ? code(build.tag ?? build.branch!) : undefined],
    ['Commit', build.sha ? new Md(`${code(sha7(build.sha)).text}${build.message ? ` ${escapeMd(firstLine(build.message))}` : ''}`) : build.message && firstLine(build.message)],
    ['By', build.actor],
    ['Duration', build.durationSeconds === undefined ? undefined : humanDuration(build.durationSeconds)],
    ['URL', build.url],
  ],
    locale,
  );
  const details = detailsMarkdown(build.details ?? []);
  const content = details ? `${lines.join('\n')}\n\n${details}` : lines.join('\n');
  const base: MetadataBase = { template: 'ci-build', template_version: CI_BUILD_VERSION, sender: build.system, event: build.event, locale };
  const metadata = extraMetadata(base, {
    repository: build.repository,
    pipeline: build.pipeline,
    job: build.job,
    build_number: build.number,
    status,
    sender_status: build.rawStatus,
    branch: build.branch,
    tag: build.tag,
    sha: build.sha,
    actor: build.actor,
    duration_seconds: build.durationSeconds,
    url: build.url,
  });
  return result(title, content, metadata);
}

const DETAIL_LABEL = /^([A-Z][A-Za-z ]{0,30}):(?: (.*))?$/s;

/**
 * A reader's detail lines as Markdown: "Label: value" → **Label:** value, "- item" lines as a
 * list under the line before them, anything else its own paragraph.
 */
function detailsMarkdown(details: readonly string[]): string {
  const blocks: string[] = [];
  for (const raw of details) {
    const d = oneLine(raw, 300);
    if (d.startsWith('- ') && blocks.length > 0) {
      blocks[blocks.length - 1] += `\n- ${escapeMd(d.slice(2))}`;
      continue;
    }
    const labelled = DETAIL_LABEL.exec(d);
    blocks.push(labelled ? `**${labelled[1]}:**${labelled[2] ? ` ${factValue(labelled[2])}` : ''}` : escapeMd(d));
  }
  return blocks.join('\n\n');
}
