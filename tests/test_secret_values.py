"""A `secret` is a credential someone could use, in the shapes real memories hold it.

The lines below are shaped on public memory stores (every value here is made up): deployment
notes that write a password after a label in several languages, credentials tables, app
passwords in groups, and the many lines that look the same and hold no credential at all
(placeholders, references to a vault, schema fields, code reading an env var, password
policies, public keys).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import index_line, memory_text, write_index, write_memory

from tui.memory.audit import audit_store
from tui.memory.curate import plan_redact_secrets
from tui.memory.secrets import find_secrets
from tui.memory.store import load_store

# (line, the credential in it): labels and forms seen in real notes.
CREDENTIALS = [
    ("- **Chip email password**: 7tqEY8P2B3G43jK&", "7tqEY8P2B3G43jK&"),
    ("- cPanel password: `Hawk7Ridge!Vault92#Pebble`", "Hawk7Ridge!Vault92#Pebble"),
    ("1. Change `Asons` password (still on `TempAdmin2031!`) — WP Admin → Users",
     "TempAdmin2031!"),
    ("8. **n8n App Password CREATED**: user `Asons`, pw `rrQB uBCB yhCR fX5k Tjlc yXH1`",
     "rrQB uBCB yhCR fX5k Tjlc yXH1"),
    ("- App Password: DZkQ g48h LaB6 6F0J 1mDF uiIG", "DZkQ g48h LaB6 6F0J 1mDF uiIG"),
    ("| 8 | **Gmail App Password** (`pnnfjqbqwxbvldtz`) | revoke |", "pnnfjqbqwxbvldtz"),
    ("DB_PASSWORD=Yk2#pQ9vRt", "Yk2#pQ9vRt"),
    ("- Senha: `Forte456$`", "Forte456$"),
    ("- 비밀번호: !Imgine1988", "!Imgine1988"),
    ("- Passwort → **`834512`** (SQL-bcrypt)", "834512"),
    ("パスワード：Tq7-wLx2Pz", "Tq7-wLx2Pz"),
    ("- SSH: `sshpass -p 'Yaimakmak889' ssh root@10.0.0.4`", "Yaimakmak889"),
    ("curl -u admin:Zr8wQp2Kx1 https://nas.lan/api", "Zr8wQp2Kx1"),
    ("DATABASE_URL=postgresql://app:Yaimakmak1235@127.0.0.1:5432/auth", "Yaimakmak1235"),
    ("- Client Secret (Production): `fhcq3ElTZI82vBfI5UeB4CuETCgV0dONkI17fXYZ`",
     "fhcq3ElTZI82vBfI5UeB4CuETCgV0dONkI17fXYZ"),
    ("| Pixabay API Key | `54734773-088e51dd1d891716abda5f3e2` |",
     "54734773-088e51dd1d891716abda5f3e2"),
    ("Auth: Authorization: Bearer pit-9f981ca1-b6b2-4e1c-a9b0-2f39a4a81fc0",
     "pit-9f981ca1-b6b2-4e1c-a9b0-2f39a4a81fc0"),
    ("- META_APP_SECRET=c22c1b441a7661f03b1fa2193c41806b", "c22c1b441a7661f03b1fa2193c41806b"),
]

# (line, kind, credential): provider keys, found without a label.
PROVIDER_KEYS = [
    ("Deploys use sk-ant-api03-Jq8ZvNw2Lk5Tr9Xm3Pb7Hd1Yc6Fg4Us0Qe2Wa8Rn5Ti9", "Anthropic API Key or token",
     "sk-ant-api03-Jq8ZvNw2Lk5Tr9Xm3Pb7Hd1Yc6Fg4Us0Qe2Wa8Rn5Ti9"),
    ("OPENAI_API_KEY=sk-proj-Bs5fDf5wQ9zLm2Xv8Kt4Rn7Hy1Pc6Jd3Ga0Ue5Wb", "OpenAI API Key",
     "sk-proj-Bs5fDf5wQ9zLm2Xv8Kt4Rn7Hy1Pc6Jd3Ga0Ue5Wb"),
    ("PAT github_pat_11BWYCT3Y0aZq7Lm2Xv9Bn4Kt8Wr3Hy6Pc1Fd5Js0Ga7Ue2M_xQ4tR8nV2bL6pW0", "GitHub Token",
     "github_pat_11BWYCT3Y0aZq7Lm2Xv9Bn4Kt8Wr3Hy6Pc1Fd5Js0Ga7Ue2M_xQ4tR8nV2bL6pW0"),
    ("| Gemini API Key | `AIzaSyA4depdezS-r-8MSqaigUfSKYLJg6L91Zx` |", "Google API Key",
     "AIzaSyA4depdezS-r-8MSqaigUfSKYLJg6L91Zx"),
    ("id AKIAQ3ZV7MJ2LR5TXN4B", "AWS Access Key", "AKIAQ3ZV7MJ2LR5TXN4B"),
    # detect-secrets reads 24 characters after `sk_live_`: the whole key is the span redacted
    ("STRIPE=sk_live_51HqLy2Kx9Qw8Er7Ty6Ui5Op4As3Df2Gh", "Stripe Access Key",
     "sk_live_51HqLy2Kx9Qw8Er7Ty6Ui5Op4As3Df2Gh"),
    ("SLACK_BOT_TOKEN=xoxb-2144567893-1934567820123-AbQdEfGhIjKlMnOpQrStUvWx", "Slack Token",
     "xoxb-2144567893-1934567820123-AbQdEfGhIjKlMnOpQrStUvWx"),
]

# Lines that hold no credential, though a rule's shape is in them.
NOT_CREDENTIALS = [
    "postgresql://postgres:<PASSWORD>@<HOST>:<PORT>/railway",
    "postgresql://<POSTGRES_USER>:<POSTGRES_PASSWORD>@db:5432/app",
    "Vovan should give us a proxy `http://user:pass@host:port`.",
    "PGPASSWORD=<POSTGRES_PASSWORD> psql -U app -c 'QUERY'",
    "POSTGRES_PASSWORD=${POSTGRES_PASSWORD}",
    "export DB_PASSWORD=$DB_PASSWORD",
    'echo password=$GH_PRIVATE_TOKEN; }; f" push',
    "password: see 1Password",
    "Password: stored in `tests/.env.test` (gitignored)",
    "- Token: see Master Credentials Sheet",
    "Password reset flow: POST /auth/forgot-password + /auth/reset-password",
    "Password policy: min 12 chars, one symbol, rotated every 90 days",
    "password: string",
    "    password_hash   VARCHAR(128) NOT NULL,   -- bcrypt",
    '  password: process.env.DB_PASSWORD,',
    'password = os.environ["DB_PASSWORD"]',
    "ANTHROPIC_API_KEY=sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "OPENAI_API_KEY=sk-your-key",
    "api_key: your-api-key-here",
    "token: ghp_...",
    "password: ********",
    "password: changeme",
    "| AWS Keys | `AKIAIOSFODNN7EXAMPLE` | `{{AWS_ACCESS_KEY}}` |",
    "AP3000 →SSH→ APCollectorAgent → DataStore(memory) + CSV + SQLite",
    "- test user with a known simple password (e.g., `Extreme02`) in XIQ",
    "Default AP password: `aerohive` (older firmware)",
    "- Secrets: DEPLOY_HOST, DEPLOY_USER, DEPLOY_PASSWORD (configured)",
    "| `wg-easy-init` | username, password (one-time `INIT_*` bootstrap) |",
    "rolling citations PASS: typography=4, component=4, motion=5",
    "All three call sites pass `executionContext` to the gate.",
    "Staff passphrase → MacBook on Default VLAN",
    "- 비밀번호 `\"1000\"` (4자리)",
    "앱 비밀번호 `claude-adsense-remediation-260821` 발급·유지 중",
    "- **Session Key**: agent:ceo:telegram:direct:5392634971",
    "| EGG token | 0xc20A6C27B12FC81C5FBF46b30AAb6CF912A3C03b |",
    "- Stripe publishable key: pk_live_51HqLy2Kx9Qw8Er7Ty6Ui5Op4As3Df2Gh",
    "- **Production client_key**: `awhtm3emzgjcvin7`",
    "const LOCALSTORAGE_KEY = 'APP_QUERY_CACHE_v1';",
    "- Verify token : `automationact_meta_2027`",
    "$token = hash_hmac('sha256', $payload, config('app.qr_secret'));",
    "Check for `-----BEGIN OPENSSH PRIVATE KEY-----` blocks in pasted text.",
]


@pytest.mark.parametrize(("line", "value"), CREDENTIALS, ids=[v for _, v in CREDENTIALS])
def test_a_labelled_password_or_key_is_a_secret_and_its_value_is_the_span(line, value):
    hits = list(find_secrets(line))
    assert len(hits) == 1
    assert line[hits[0].start:hits[0].end] == value


@pytest.mark.parametrize(("line", "kind", "value"), PROVIDER_KEYS, ids=[k for _, k, _ in PROVIDER_KEYS])
def test_a_provider_key_is_a_secret_of_its_kind(line, kind, value):
    hits = list(find_secrets(line))
    assert [(hit.kind, line[hit.start:hit.end]) for hit in hits] == [(kind, value)]


@pytest.mark.parametrize("line", NOT_CREDENTIALS)
def test_placeholders_references_words_and_public_values_are_not_secrets(line):
    assert list(find_secrets(line)) == []


def test_a_private_key_block_is_a_secret_and_its_header_alone_is_not():
    block = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
             "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
             "-----END OPENSSH PRIVATE KEY-----\n")
    assert [(hit.kind, hit.line) for hit in find_secrets(block)] == [("Private Key", 1)]


def test_a_jwt_counts_unless_it_is_a_public_anon_key():
    import base64

    def part(claims: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")

    header = part({"alg": "HS256", "typ": "JWT"})
    signature = "Qm8tZ3Jx7Lk2Vn9Tz4Wp1Hs6Jd3Fb0Yc5Ng8Ue2A"
    service = f"{header}.{part({'role': 'service_role', 'iss': 'supabase'})}.{signature}"
    anon = f"{header}.{part({'role': 'anon', 'iss': 'supabase'})}.{signature}"
    line = f"| claude-code | `{service}` |"
    [hit] = find_secrets(line)
    assert (hit.kind, line[hit.start:hit.end]) == ("JSON Web Token", service)
    assert list(find_secrets(f"SUPABASE_ANON_KEY={anon}")) == []


DEPLOY_NOTE = """\
## Staging server

- Host: `10.33.1.33`, user `deploy`, SSH pw `Qw7!zR2pLx`
- Postgres: `DATABASE_URL=postgresql://app:${DB_PASSWORD}@127.0.0.1:5432/app`
- Admin login: iduser `admin` / pw `8SwavXWDaW4BGCfR` (seeded from ADMIN_PASSWORD)
- Password policy: 12 characters, rotated quarterly; reset flow at /auth/reset-password
- Secrets live in 1Password: password: see 1Password
"""


@pytest.fixture
def deploy_store(claude_home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    store = claude_home.store(project)
    write_memory(store, "project_staging.md",
                 memory_text("staging", "staging server access", "project", DEPLOY_NOTE))
    write_index(store, [index_line("project_staging.md")])
    return store


def test_a_deployment_note_gives_one_error_per_password_line_naming_file_and_line(deploy_store):
    findings = [f for f in audit_store(load_store(deploy_store)) if f.kind == "secret"]

    assert [(f.file, f.line, f.severity) for f in findings] == [
        ("project_staging.md", 9, "error"), ("project_staging.md", 11, "error")]
    assert findings[0].message.startswith("Password on line 9 of project_staging.md")
    for finding in findings:
        assert "Qw7!zR2pLx" not in finding.message and "8SwavXWDaW4BGCfR" not in finding.message


def test_the_cli_text_and_json_never_print_a_password(deploy_store, claude_home):
    for extra in ([], ["--json"]):
        result = subprocess.run(
            [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
             "audit", str(deploy_store), *extra], capture_output=True, text=True,
            env={**os.environ, **claude_home.env}, timeout=60)
        shown = result.stdout + result.stderr
        assert "project_staging.md" in shown
        assert "Qw7!zR2pLx" not in shown and "8SwavXWDaW4BGCfR" not in shown
    kinds = [f["kind"] for f in json.loads(result.stdout)["findings"]]
    assert kinds.count("secret") == 2


def test_redacting_a_deployment_note_replaces_only_the_passwords(deploy_store):
    plan = plan_redact_secrets(load_store(deploy_store))

    assert plan.summary == ["Redact the Password on line 9 of project_staging.md.",
                            "Redact the Password on line 11 of project_staging.md."]
    [change] = plan.changes
    after = change.after.decode()
    assert "Qw7!zR2pLx" not in after and "8SwavXWDaW4BGCfR" not in after
    assert after.count("[REDACTED]") == 2
    assert "${DB_PASSWORD}" in after and "password: see 1Password" in after
