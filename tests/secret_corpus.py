"""A corpus of fake secrets of many kinds, and a real transcript with them planted in it.

Every secret is made at run time from a seeded generator, so no token-shaped string is ever in
the repository (provider scanners would flag it). ``planted_session`` copies a real fixture
session and appends records shaped like the real ones around them, carrying the secrets in the
five places a conversation holds text: user text, tool inputs, tool results, JSON nested inside
a tool result string, and assistant text; ``escaped`` puts them there as JSON-escaped text
(what a tool prints when it dumps JSON), where a secret follows ``\\n`` or sits in ``\\"…\\"``.
"""

from __future__ import annotations

import base64
import copy
import json
import random
import string
import uuid
from dataclasses import dataclass
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
PLACES = ("user text", "tool input", "tool result", "nested json", "assistant text", "thinking")
SESSION_FILE = "projects/-home-marco-projects-spotter/tool_heavy.jsonl"
SESSION = "tool_heavy"


@dataclass(frozen=True)
class Planted:
    kind: str
    secret: str  # the text that must never come out
    line: str  # the line it stands in


def corpus(seed: int) -> list[Planted]:
    """More than 150 secrets of more than 80 kinds, each in the line it is usually met in."""
    rng = random.Random(seed)

    def chars(n: int, alphabet: str = ALNUM) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    aws_id = "AKIA" + chars(16, UPPER + "234567")
    aws_secret = chars(40, B64)
    azure = chars(86, B64) + "=="
    docker = base64.b64encode(f"deploy:{chars(12)}".encode()).decode()
    basic = base64.b64encode(f"admin:{chars(14)}".encode()).decode()
    key_body = chars(64, B64)
    hunter = "hunter2" + chars(3, string.digits)
    items = [
        ("aws-access-key", aws_id, f"aws_access_key_id = {aws_id}"),
        ("aws-secret-key", aws_secret, f"{aws_id},{aws_secret}"),
        ("aws-secret-key", s := chars(40, B64), f"export AWS_SECRET_ACCESS_KEY={s}"),
        ("aws-secret-key", s := chars(40, B64), f'"SecretAccessKey": "{s}",'),
        ("google-api-key", s := "AIza" + chars(35, ALNUM + "_-"), f"maps key {s} in the url"),
        ("digitalocean-token", s := "dop_v1_" + chars(64, HEX), f"doctl auth init -t {s}"),
        ("alibaba-access-key", s := "LTAI" + chars(20), f"access id {s}"),
        (
            "azure-storage-key",
            azure,
            f"DefaultEndpointsProtocol=https;AccountName=files;AccountKey={azure};"
            "EndpointSuffix=core.windows.net",
        ),
        (
            "azure-storage-key",
            s := chars(43, B64) + "=",
            f"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=all;SharedAccessKey={s}",
        ),
        ("github-token", s := "ghp_" + chars(36), f"git clone https://{s}@github.com/o/r"),
        ("github-token", s := "github_pat_" + chars(82, ALNUM + "_"), s),
        ("gitlab-token", s := "glpat-" + chars(20), f"GITLAB token {s}"),
        ("slack-token", s := "xoxb-" + chars(11, string.digits) + "-" + chars(24), f"slack: {s}"),
        (
            "slack-webhook",
            s := f"T{chars(8, UPPER)}/B{chars(8, UPPER)}/{chars(24)}",
            f"curl -X POST https://hooks.slack.com/services/{s}",
        ),
        (
            "discord-webhook",
            s := f"{chars(18, string.digits)}/{chars(68, ALNUM + '_-')}",
            f"https://discord.com/api/webhooks/{s}",
        ),
        (
            "telegram-bot-token",
            s := f"{chars(9, string.digits)}:AA{chars(33, ALNUM + '_-')}",
            f"bot {s}",
        ),
        ("twilio-key", s := "SK" + chars(32, HEX), f"twilio api key {s}"),
        ("sendgrid-key", s := f"SG.{chars(22, ALNUM + '_-')}.{chars(43, ALNUM + '_-')}", s),
        ("mailgun-key", s := "key-" + chars(32, HEX), f"mailgun api: {s}"),
        ("stripe-key", s := "sk_" + "live_" + chars(24), f"Stripe.api_key = '{s}'"),
        ("square-token", s := "sq0atp-" + chars(22, ALNUM + "_-"), f"square {s}"),
        ("shopify-token", s := "shpat_" + chars(32, HEX), f"X-Shopify-Access-Token: {s}"),
        (
            "anthropic-key",
            s := "sk-ant-api03-" + chars(93, ALNUM + "_-") + "AA",
            f"ANTHROPIC_API_KEY={s}",
        ),
        (
            "openai-key",
            s := "sk-proj-" + chars(48, ALNUM + "_-"),
            f'client = OpenAI(api_key="{s}")',
        ),
        ("openai-key", s := "sk-" + chars(20) + "T3BlbkFJ" + chars(20), f"key {s}"),
        (
            "huggingface-token",
            s := "hf_" + chars(34, string.ascii_letters),
            f"huggingface-cli login --token {s}",
        ),
        ("replicate-token", s := "r8_" + chars(37), f"REPLICATE {s}"),
        ("groq-key", s := "gsk_" + chars(52), f"groq {s}"),
        ("perplexity-key", s := "pplx-" + chars(48), f"pplx {s}"),
        ("databricks-token", s := "dapi" + chars(32, HEX), f"use {s} for the workspace"),
        ("npm-token", s := "npm_" + chars(36), f"//registry.npmjs.org/:_authToken={s}"),
        ("npm-token", s := "npm_" + chars(36), f"the token is {s}"),
        ("pypi-token", s := "pypi-AgEIcHlwaS5vcmc" + chars(60, ALNUM + "_-"), f"password = {s}"),
        ("rubygems-token", s := "rubygems_" + chars(48, HEX), f"GEM_HOST_API_KEY: {s}"),
        (
            "dockerhub-token",
            s := "dckr_pat_" + chars(27, ALNUM + "_-"),
            f"docker login -u me -p {s}",
        ),
        (
            "auth-credential",
            docker,
            f'{{"auths": {{"registry.example.com": {{"auth": "{docker}"}}}}}}',
        ),
        (
            "private-key",
            key_body,
            f"-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n{chars(64, B64)}\n-----END RSA PRIVATE KEY-----",
        ),
        (
            "private-key",
            s := chars(64, B64),
            json.dumps(
                {
                    "type": "service_account",
                    "private_key": f"-----BEGIN PRIVATE KEY-----\n{s}\n-----END PRIVATE KEY-----\n",
                }
            ),
        ),
        ("jwt", s := f"eyJ{chars(20)}.eyJ{chars(40)}.{chars(43, ALNUM + '_-')}", f"token: {s}"),
        (
            "url-credentials",
            s := chars(16),
            f"DATABASE_URL=postgres://app:{s}@db.internal:5432/app",
        ),
        ("url-credentials", s := chars(14), f"redis-cli -u redis://:{s}@cache:6379"),
        (
            "bearer-token",
            s := chars(40),
            f'curl -H "Authorization: Bearer {s}" https://api.example.com',
        ),
        ("basic-auth", basic, f"Authorization: Basic {basic}"),
        ("assigned-secret", hunter, f"PASSWORD={hunter}"),
        ("assigned-secret", s := chars(12), f"DB_PASSWORD={s}"),
        ("assigned-secret", s := chars(18), f"api_key: {s}"),
        ("assigned-secret", s := chars(16), f'{{"client_secret": "{s}"}}'),
        ("assigned-secret", s := chars(10), f"mysql -u root -p{s} app"),
        ("assigned-secret", s := chars(15), f"vault login --password {s}"),
        ("assigned-secret", s := chars(24), f"export API_TOKEN=\\\n    {s}"),
        ("assigned-secret", s := chars(20), f'config :app, secret_key_base: "{s}"'),
        ("aws-access-key", s := "AKIA" + chars(16, UPPER + "234567"), f"AWS_ACCESS_KEY_ID={s}"),
        ("github-token", s := "ghp_" + chars(36), f"GITHUB_TOKEN={s}"),
        (
            "slack-token",
            s := "xoxb-" + chars(11, string.digits) + "-" + chars(24),
            f"SLACK_BOT_TOKEN={s}",
        ),
        ("stripe-key", s := "sk_" + "live_" + chars(24), f"stripe listen --api-key {s}"),
        ("openai-key", s := "sk-proj-" + chars(48, ALNUM + "_-"), f"OPENAI_API_KEY={s}"),
        ("npm-token", s := "npm_" + chars(36), f"NPM_TOKEN={s}"),
        (
            "jwt",
            s := f"eyJ{chars(24)}.eyJ{chars(44)}.{chars(43, ALNUM + '_-')}",
            f"Cookie: session={s}",
        ),
        ("assigned-secret", s := chars(14), f"SECRET_KEY = '{s}'"),
        (
            "url-credentials",
            s := chars(12),
            f"mongodb+srv://admin:{s}@cluster0.example.net/db",
        ),
        ("google-api-key", s := "AIza" + chars(35, ALNUM + "_-"), f"GOOGLE_API_KEY={s}"),
        ("gitlab-token", s := "glpat-" + chars(20), f"CI_JOB_TOKEN: {s}"),
        # secrets managers, observability, project tools
        ("vault-token", s := "hvs." + chars(90, ALNUM + "_-"), f"export VAULT_TOKEN={s}"),
        ("doppler-token", s := "dp.pt." + chars(43), f"doppler configure set token {s}"),
        ("postman-token", s := f"PMAK-{chars(24, HEX)}-{chars(34, HEX)}", f"postman {s}"),
        ("linear-key", s := "lin_api_" + chars(40), f"Linear key {s}"),
        ("grafana-token", s := f"glsa_{chars(32)}_{chars(8, HEX)}", f"grafana sa {s}"),
        ("atlassian-token", s := "ATATT3" + chars(186, ALNUM + "_-="), f"jira token {s}"),
        ("pulumi-token", s := "pul-" + chars(40, HEX), f"PULUMI_ACCESS_TOKEN {s}"),
        (
            "age-secret-key",
            s := "AGE-SECRET-KEY-1" + chars(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
            f"# created: 2026-01-01\n{s}",
        ),
        ("newrelic-key", s := "NRAK-" + chars(27, UPPER + string.digits), f"newrelic {s}"),
        ("sentry-token", s := "sntryu_" + chars(64, HEX), f"sentry-cli --auth-token {s}"),
        (
            "aws-secret-key",
            s := chars(40, B64),
            f"[default]\naws_access_key_id = AKIA{chars(16, UPPER)}\naws_secret_access_key = {s}",
        ),
        # long values: past what a keyword value used to be matched up to
        ("assigned-secret", s := chars(400), f'{{"access_token": "{s}"}}'),
        ("assigned-secret", s := chars(300), f'refresh_token="{s}"'),
        ("assigned-secret", s := chars(257), f'"client_secret": "{s}"'),
        ("assigned-secret", s := chars(617, B64), f'"SessionToken": "{s}"'),
        ("assigned-secret", s := chars(500), f"ACCESS_TOKEN={s}"),
        (
            "jwt",
            s := f"eyJ{chars(30)}.eyJ{chars(400)}.{chars(43, ALNUM + '_-')}",
            f"Authorization: Bearer {s}",
        ),
        # commands that take a password
        ("assigned-secret", s := chars(14), f"curl -u deploy:{s} https://api.example.com/v1"),
        ("assigned-secret", s := chars(12), f"curl --user 'ci:{s}' -X POST https://x.example"),
        ("assigned-secret", s := chars(13), f"sshpass -p '{s}' ssh root@10.0.0.5"),
        ("assigned-secret", s := chars(11), f"ldapsearch -x -D cn=admin,dc=corp -w {s} -b dc=corp"),
        ("assigned-secret", s := chars(16), f"redis-cli -h cache -a {s} ping"),
        ("assigned-secret", s := chars(18), f"docker login -u ci -p {s} registry.example.com"),
        ("assigned-secret", s := chars(18), f"az login --service-principal -u app -p {s} -t t"),
        ("assigned-secret", s := chars(15), f"keytool -genkeypair -storepass {s} -alias app"),
        ("assigned-secret", s := chars(15), f"openssl pkcs12 -export -passout pass:{s} -out a.p12"),
        ("assigned-secret", s := chars(15), f"openssl enc -aes-256-cbc -k {s} -in backup.tar"),
        ("assigned-secret", s := chars(12), f"zip -P {s} -r secrets.zip conf/"),
        ("assigned-secret", s := chars(12), f"7z a -p{s} backup.7z data/"),
        ("assigned-secret", s := chars(12), f"smbclient //nas/share -U admin%{s}"),
        ("assigned-secret", s := chars(16), f"mongosh mongodb://db:27017 -u admin -p {s}"),
        ("assigned-secret", s := chars(16), f"sqlcmd -S localhost -U sa -P '{s}' -Q 'SELECT 1'"),
        ("assigned-secret", s := chars(14), f"htpasswd -bc /etc/nginx/.htpasswd admin {s}"),
        ("assigned-secret", s := chars(14), f"rabbitmqctl add_user deploy '{s}'"),
        ("assigned-secret", s := chars(14), f"useradd -m -p $(openssl passwd -6 {s}) deploy"),
        ("assigned-secret", s := chars(14), f"mysqladmin -u root -h db password {s}"),
        ("assigned-secret", s := chars(24), f"gh secret set DEPLOY_TOKEN --body {s}"),
        # a password written to a command's input
        ("assigned-secret", s := chars(13), f"echo '{s}' | sudo -S apt-get install -y nginx"),
        ("assigned-secret", s := chars(18), f'echo "{s}" | docker login --password-stdin r.io'),
        ("assigned-secret", s := chars(12), f"RUN echo 'app:{s}' | chpasswd"),
        ("assigned-secret", s := chars(26), f"vault login -token={s}"),
        ("assigned-secret", s := chars(14), f"gpg --batch --passphrase {s} -c notes.txt"),
        ("assigned-secret", s := chars(13) + "7", f"echo {s} | kinit admin@EXAMPLE.COM"),
        ("assigned-secret", s := chars(13) + "7", f"the password is {s}, as agreed"),
        ("aws-secret-key", s := chars(39, B64) + "7", f"the aws secret key is {s}"),
        ("assigned-secret", s := chars(16), f"az vm create -n vm --admin-password '{s}'"),
        ("assigned-secret", s := chars(24), f'    secret_key: str = "{s}"'),
        ("assigned-secret", s := chars(24), f"define( 'DB_PASSWORD', '{s}' );"),
        ("assigned-secret", s := chars(24), f"set -gx DEPLOY_TOKEN {s}"),
        (
            "google-oauth-token",
            s := "ya29." + chars(140, ALNUM + "_-"),
            f"$ gcloud auth print-access-token\n{s}",
        ),
        ("assigned-secret", s := chars(16), f'ConvertTo-SecureString "{s}" -AsPlainText -Force'),
        ("assigned-secret", s := chars(14), f"ssh-keygen -t ed25519 -N '{s}' -f deploy_key"),
        ("assigned-secret", s := chars(14), f"requests.post(url, auth=('deploy', '{s}'))"),
        ("assigned-secret", s := chars(14), f"os.environ['DB_PASSWORD'] = '{s}'"),
        ("mailchimp-key", s := chars(32, HEX), f"MAILCHIMP = '{s}-us21'"),
        (
            "discord-bot-token",
            s := "MTk4NjIyNDgzNDcxOTI1MjQ4."
            + chars(6, ALNUM + "_-")
            + "."
            + chars(38, ALNUM + "_-"),
            f"client.run('{s}')",
        ),
        ("assigned-secret", s := chars(14), f"xfreerdp /v:10.0.0.5 /u:alice /p:{s}"),
        ("assigned-secret", s := chars(14), f"net use Z: \\\\fs01\\share /user:alice {s}"),
        ("assigned-secret", s := chars(14), f"net user deploy {s} /add"),
        ("assigned-secret", s := chars(14), f"sqlplus scott/{s}@orcl"),
        ("assigned-secret", s := chars(14), f"nmcli device wifi connect HomeNet password {s}"),
        ("assigned-secret", s := chars(14), f'    psk="{s}"'),
        ("assigned-secret", s := chars(14), f"echo '{s}' > ~/.vault_pass"),
        ("vault-token", s := "s." + chars(24), f"vault login {s}"),
        ("assigned-secret", s := chars(14), f"echo -n '{s}' | cryptsetup open /dev/sdb1 vault -"),
        ("assigned-secret", s := chars(14), f'<input type="password" name="pw" value="{s}">'),
        ("assigned-secret", s := chars(14), f'expect "password:"\nsend "{s}\\r"'),
        ("assigned-secret", s := chars(14), f'<property name="db.password" value="{s}"/>'),
        ("assigned-secret", s := chars(14), f"requirepass {s}"),
        ("assigned-secret", s := chars(14), f"plink -pw {s} deploy@host uptime"),
        ("assigned-secret", s := chars(14), f'db.auth("admin", "{s}")'),
        ("assigned-secret", s := chars(14), f"env:\n  - name: DB_PASSWORD\n    value: {s}\n"),
        ("assigned-secret", s := chars(14), f'dsn := "app:{s}@tcp(db:3306)/app"'),
        ("assigned-secret", s := chars(43, ALNUM + "_-"), f'fernet = Fernet(b"{s}=")'),
        (
            "url-credentials",
            s := chars(52, string.ascii_lowercase + "234567"),
            f"git clone https://{s}@dev.azure.com/org/project/_git/repo",
        ),
        (
            "url-signature",
            s := chars(64, HEX),
            f"https://b.s3.amazonaws.com/k?X-Amz-SignedHeaders=host&X-Amz-Signature={s}",
        ),
        ("assigned-secret", s := chars(32, HEX), f"GET /maps/api/geocode/json?key={s}&address=x"),
        # keys named only "…_KEY": a value that looks like a key
        ("assigned-secret", s := "base64:" + chars(43, B64) + "=", f"APP_KEY={s}"),
        ("assigned-secret", s := chars(43, ALNUM + "_-") + "=", f"FERNET_KEY={s}"),
        ("assigned-secret", s := chars(32), f'{{"hmac_key": "{s}"}}'),
        ("assigned-secret", s := chars(40, ALNUM + "_-"), f'const signingKey = "{s}";'),
        # SQL
        ("sql-password", s := chars(16), f"CREATE USER 'app'@'%' IDENTIFIED BY '{s}';"),
        ("sql-password", s := chars(16), f"ALTER ROLE app WITH LOGIN PASSWORD '{s}';"),
        ("sql-password", s := chars(16), f"create user app with encrypted password '{s}';"),
        # configuration files and manifests
        (
            "kubernetes-secret",
            s := base64.b64encode(chars(18).encode()).decode(),
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
            f"data:\n  connection: {s}\n",
        ),
        (
            "kubernetes-secret",
            s := base64.b64encode(
                b'{"auths":{"r.io":{"auth":"' + chars(16).encode() + b'"}}}'
            ).decode(),
            f"data:\n  .dockerconfigjson: {s}\nkind: Secret\ntype: kubernetes.io/dockerconfigjson",
        ),
        (
            "docker-config",
            s := base64.b64encode(
                b'{"auths":{"ghcr.io":{"auth":"' + chars(20).encode() + b'"}}}'
            ).decode(),
            f"DOCKER_CONFIG_B64 {s}",
        ),
        (
            "netrc-password",
            s := chars(20),
            f"machine api.heroku.com\n  login me@example.com\n  password {s}",
        ),
        ("netrc-password", s := chars(12), f"machine github.com login octo password {s}"),
        ("pgpass-password", s := chars(15), f"db.internal:5432:app:appuser:{s}"),
        ("pgpass-password", s := chars(10), f"echo '*:*:*:postgres:{s}' >> ~/.pgpass"),
        ("xml-password", s := chars(14), f"<server><id>repo</id><password>{s}</password></server>"),
        (
            "nuget-password",
            s := chars(16),
            f'<add key="Username" value="me" />\n<add key="ClearTextPassword" value="{s}" />',
        ),
        (
            "private-key",
            s := chars(40, B64),
            f"users:\n- name: admin\n  user:\n    client-key-data: LS0tLS1CRUdJTi{s}",
        ),
        ("aws-secret-key", s := chars(40, B64), f"aws_secret_access_key   =   {s}"),
        ("assigned-secret", hunter2 := "hunter2hunter2", f"password = {hunter2}"),
        ("assigned-secret", s := "correcthorsebatterystaple", f"PASSWORD = {s}"),
        # cut, wrapped, split
        (
            "private-key",
            s := chars(64, B64),
            f"$ head -4 id_rsa\n-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n{chars(64, B64)}\n{chars(64, B64)}",
        ),
        (
            "jwt",  # the secret to look for: a whole line of it (the JWT is never on one)
            (jwt := f"eyJ{chars(33)}.eyJ{chars(150)}.{chars(43, ALNUM + '_-')}")[76:152],
            "\n".join(jwt[i : i + 76] for i in range(0, len(jwt), 76)),
        ),
        (
            "github-token",  # written in two pieces: look for the second
            (s := "ghp_" + chars(36))[14:],
            f'GH = "{s[:14]}" + "{s[14:]}"',
        ),
        (
            "github-token",  # the pieces of a join call
            (s := "ghp_" + chars(36))[22:],
            f'token = "".join(["{s[:9]}", "{s[9:22]}", "{s[22:]}"])',
        ),
        (
            "gitlab-token",  # JavaScript's join, over lines
            (s := "glpat-" + chars(20))[12:],
            f'const token = [\n  "{s[:12]}",\n  "{s[12:]}",\n].join("");',
        ),
        (
            "openai-key",  # names given the pieces, then added
            (s := "sk-proj-" + chars(48, ALNUM + "_-"))[20:],
            f'head = "{s[:20]}"\ntail = "{s[20:]}"\nclient = OpenAI(api_key=head + tail)',
        ),
        (
            "slack-token",  # names given the pieces, then placed in a string
            (s := "xoxb-" + chars(11, string.digits) + "-" + chars(24))[17:],
            f'A="{s[:17]}"\nB="{s[17:]}"\ncurl -H "Authorization: Bearer ${{A}}${{B}}" x',
        ),
        (
            "github-token",  # a name given a piece, then the rest added to it
            (s := "ghp_" + chars(36))[12:],
            f'gh_auth = "{s[:12]}"\ngh_auth += "{s[12:]}"',
        ),
        (
            "stripe-key",  # a template filled with % and a tuple of pieces
            (s := "sk_" + "live_" + chars(28))[10:],
            f'stripe.api_key = "%s%s" % ("{s[:10]}", "{s[10:]}")',
        ),
        (
            "anthropic-key",  # a template filled by .format
            (s := "sk-ant-api03-" + chars(93, ALNUM + "_-") + "AA")[7:],
            f'key = "{{}}{{}}".format("{s[:7]}", "{s[7:]}")',
        ),
        (
            "huggingface-token",  # literals side by side over lines (Python, C)
            (s := "hf_" + chars(34, string.ascii_letters))[16:],
            f'HF_TOKEN = (\n    "{s[:16]}"\n    "{s[16:]}"\n)',
        ),
        (
            "kubernetes-secret",  # a Secret in JSON, its data before its kind
            s := base64.b64encode(chars(20).encode()).decode(),
            json.dumps(
                {"apiVersion": "v1", "data": {"tls.key": s}, "kind": "Secret", "type": "Opaque"},
                indent=4,
            ),
        ),
        (
            "kubernetes-secret",  # and on one line, its values written out
            s := chars(18),
            f'{{"kind":"Secret","apiVersion":"v1","stringData":{{"token":"{s}"}}}}',
        ),
        # more providers
        ("1password-token", s := "ops_eyJ" + chars(260, B64), f"OP_SERVICE_ACCOUNT_TOKEN={s}"),
        (
            "1password-secret-key",
            s := "A3-" + "-".join(chars(n, UPPER + string.digits) for n in (6, 6, 5, 5, 5, 5)),
            f"1password secret key {s}",
        ),
        ("artifactory-token", s := "AKCp" + chars(69), f"X-JFrog-Art-Api {s}"),
        ("aws-bedrock-key", s := "ABSK" + chars(132, B64), f"AWS_BEARER_TOKEN_BEDROCK {s}"),
        ("clojars-token", s := "CLOJARS_" + chars(60, HEX), f"clojars {s}"),
        (
            "defined-networking-token",
            s := f"dnkey-{chars(26, HEX)}-{chars(52, HEX)}",
            f"dnctl {s}",
        ),
        ("duffel-token", s := "duffel_test_" + chars(43), f"duffel {s}"),
        (
            "dynatrace-token",
            s := f"dt0c01.{chars(24, UPPER + string.digits)}.{chars(64)}",
            f"dt {s}",
        ),
        ("easypost-token", s := "EZAK" + chars(54), f"easypost {s}"),
        ("flutterwave-key", s := f"FLWSECK_TEST-{chars(32, HEX)}-X", f"flw {s}"),
        ("flyio-token", s := "fo1_" + chars(43), f"FLY_API_TOKEN {s}"),
        ("frameio-token", s := "fio-u-" + chars(64), f"frame {s}"),
        ("terraform-token", s := chars(66), f"TFE {chars(14, HEX)}.atlasv1.{s}"),
        ("heroku-key", s := "HRKU-AA" + chars(58), f"heroku {s}"),
        ("infracost-token", s := "ico-" + chars(32), f"infracost {s}"),
        ("mapbox-token", s := f"sk.eyJ{chars(60)}.{chars(22)}", f"mapbox {s}"),
        ("notion-token", s := f"ntn_{chars(11, string.digits)}{chars(35)}", f"notion {s}"),
        ("openshift-token", s := "sha256~" + chars(43), f"oc login --token={s}"),
        ("planetscale-token", s := "pscale_tkn_" + chars(43), f"pscale {s}"),
        ("prefect-token", s := "pnu_" + chars(36), f"prefect {s}"),
        ("readme-token", s := "rdme_" + chars(70, HEX), f"readme {s}"),
        ("scalingo-token", s := "tk-us-" + chars(48), f"scalingo {s}"),
        ("sendinblue-key", s := f"xkeysib-{chars(64, HEX)}-{chars(16)}", f"brevo {s}"),
        ("settlemint-token", s := "sm_pat_" + chars(16), f"settlemint {s}"),
        ("shippo-token", s := "shippo_live_" + chars(40, HEX), f"shippo {s}"),
        ("sonar-token", s := "squ_" + chars(40, HEX), f"sonar-scanner -Dsonar.token={s}"),
        ("sourcegraph-token", s := "sgp_" + chars(40, HEX), f"src {s}"),
        ("typeform-token", s := "tfp_" + chars(59), f"typeform {s}"),
        (
            "teams-webhook",
            s := f"{chars(32, HEX)}/{_uuid(rng)}",
            f"https://corp.webhook.office.com/webhookb2/{_uuid(rng)}@{_uuid(rng)}/IncomingWebhook/{s}",
        ),
        ("cloudflare-origin-ca-key", s := f"v1.0-{chars(24, HEX)}-{chars(146, HEX)}", f"cf {s}"),
        (
            "harness-token",
            s := f"pat.{chars(22)}.{chars(24)}.{chars(20)}",
            f"harness {s}",
        ),
        ("gitlab-session-cookie", s := chars(32, HEX), f"Cookie: _gitlab_session={s}"),
        ("yandex-key", s := "AQVN" + chars(36), f"yc {s}"),
        ("dropbox-token", s := "sl." + chars(140), f"dropbox {s}"),
        ("facebook-token", s := "EAAC" + chars(120), f"fb {s}"),
        ("octopus-deploy-key", s := "API-" + chars(26, UPPER + string.digits), f"octo {s}"),
        ("plaid-token", s := f"access-sandbox-{_uuid(rng)}", f"plaid {s}"),
        ("adobe-client-secret", s := "p8e-" + chars(32), f"adobe {s}"),
        ("azure-ad-client-secret", s := f"Q~{chars(34, ALNUM + '_.-')}", f"AZURE abc1{s}"),
        ("gitlab-token", s := "GR1348941" + chars(20), f"gitlab-runner register --token {s}"),
        ("gitlab-token", s := "gloas-" + chars(64, HEX), f"GITLAB_OAUTH_SECRET {s}"),
        ("mailgun-key", s := "pubkey-" + chars(32, HEX), f"mailgun public {s}"),
        ("grafana-token", s := "eyJrIjoi" + chars(90), f"grafana key {s}"),
        (
            "jwt",
            s := base64.b64encode(
                f"eyJhbGciOiJIUzI1NiJ9.eyJ{chars(40)}.{chars(43)}".encode()
            ).decode(),
            f"JWT_B64={s}",
        ),
        ("session-cookie", s := chars(32), f"< Set-Cookie: sessionid={s}; HttpOnly; Path=/"),
        ("session-cookie", s := chars(26), f"curl -b 'PHPSESSID={s}' https://app.example.com/"),
        # behind a separator escaped for the web: a form's body, a redirect address, an attribute
        ("assigned-secret", s := chars(28), f"curl -d 'client_id=app&client_secret%3D{s}'"),
        ("assigned-secret", s := chars(24), f"GET /cb?next=https%3A%2F%2Fx%2F%3Ftoken%3D{s} 200"),
        (
            "assigned-secret",
            s := chars(20),
            f'<div data-props="{{&quot;api_key&quot;: &quot;{s}&quot;}}">',
        ),
        ("github-token", s := "ghp_" + chars(36), f"payload=%7B%22token%22%3A%22{s}%22%7D"),
    ]
    return [Planted(kind, secret, line) for kind, secret, line in items]


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _text(lines: list[str], escaped: bool) -> str:
    joined = "\n".join(lines)
    return json.dumps({"output": joined})[12:-2] if escaped else joined


def planted_session(claude: Path, items_by_place: dict[str, list[Planted]], escaped: bool) -> Path:
    """Append records carrying the secrets to the copy of the real ``tool_heavy`` session."""
    path = claude / SESSION_FILE
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    user = copy.deepcopy(
        next(
            r
            for r in records
            if r.get("type") == "user" and isinstance(r["message"]["content"], str)
        )
    )
    call = copy.deepcopy(
        next(
            r
            for r in records
            if r.get("type") == "assistant" and r["message"]["content"][0]["type"] == "tool_use"
        )
    )
    result = copy.deepcopy(next(r for r in records if "toolUseResult" in r))
    says = copy.deepcopy(
        next(
            r
            for r in records
            if r.get("type") == "assistant" and r["message"]["content"][0]["type"] == "text"
        )
    )
    rng = random.Random(5)
    parent = next(r["uuid"] for r in reversed(records) if r.get("uuid"))
    added = []

    def chain(record: dict) -> dict:
        nonlocal parent
        record["uuid"], record["parentUuid"] = _uuid(rng), parent
        parent = record["uuid"]
        added.append(record)
        return record

    def lines(place: str) -> list[str]:
        return [item.line for item in items_by_place[place]]

    first = chain(copy.deepcopy(user))
    first["message"]["content"] = _text(["please set these up:", *lines("user text")], escaped)
    for place in ("tool input", "tool result", "nested json"):
        tool_id = f"toolu_01{rng.getrandbits(64):016x}"
        use = chain(copy.deepcopy(call))
        use["message"]["id"] = f"msg_01{rng.getrandbits(64):016x}"
        command = (
            _text(lines("tool input"), escaped) if place == "tool input" else "cat config.json"
        )
        use["message"]["content"][0].update(
            id=tool_id, name="Bash", input={"command": command, "description": "configure"}
        )
        answer = chain(copy.deepcopy(result))
        if place == "nested json":
            output = json.dumps(
                {"config": {"env": lines(place), "note": _text(lines(place), escaped)}}
            )
        elif place == "tool result":
            output = _text(lines(place), escaped)
        else:
            output = "done"
        answer["message"]["content"] = [
            {"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": False}
        ]
        answer["toolUseResult"] = {
            "stdout": output,
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        }
        answer["sourceToolAssistantUUID"] = use["uuid"]
    ask = chain(copy.deepcopy(user))
    ask["message"]["content"] = _text(["and keep these for later:", *lines("user text")], escaped)
    final = chain(copy.deepcopy(says))
    final["message"]["id"] = f"msg_01{rng.getrandbits(64):016x}"
    final["message"]["content"] = [
        {"type": "text", "text": _text(["Configured with:", *lines("assistant text")], escaped)}
    ]
    thought = chain(copy.deepcopy(says))
    thought["message"]["id"] = f"msg_01{rng.getrandbits(64):016x}"
    thought["message"]["content"] = [
        {
            "type": "thinking",
            "thinking": _text(["Checking what I configured:", *lines("thinking")], escaped),
            "signature": "c2lnbmF0dXJl",
        }
    ]
    with path.open("a") as handle:
        for record in added:
            handle.write(json.dumps(record) + "\n")
    return path


def spread(items: list[Planted]) -> dict[str, list[Planted]]:
    """Every secret in every place: a secret that survives anywhere is caught."""
    return {place: items for place in PLACES}
