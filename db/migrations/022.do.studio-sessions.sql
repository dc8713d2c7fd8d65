-- Issue 26: the console at /studio logs people in with OpenID Connect and keeps them logged in
-- with a session cookie. The cookie holds a random token; only its SHA-256 is stored, so a copy
-- of this table logs nobody in. The identity (issuer, subject) is looked up again on every
-- request, so removing a person or an identity ends their sessions at once.
create table studio_sessions (
  token_hash bytea primary key,
  issuer text not null,
  subject text not null,
  -- The CSRF token every form of this session carries (a hidden field, compared in constant time).
  csrf_token text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
-- Expired sessions are removed on the way (every login sweeps them): this finds them.
create index studio_sessions_expires_idx on studio_sessions (expires_at);

-- A login under way: /studio/login/start stores the PKCE verifier and nonce under the hash of its
-- state; /studio/callback takes the row once (a state is good for one callback, for minutes).
create table studio_logins (
  state_hash bytea primary key,
  code_verifier text not null,
  nonce text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index studio_logins_expires_idx on studio_logins (expires_at);
