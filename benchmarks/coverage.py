"""Which kinds of secret the redaction rules cover, against gitleaks' default rule ids and
detect-secrets' plugins (their names only: the rules here are our own).

    .venv/bin/python benchmarks/coverage.py [--missing]

A kind counts as covered when one of ``redact.RULES`` names it as the public rule it follows
(``Rule.source``), or, for the keyword rules (a value given to a secret-named key or to a
password flag), when the assignment rules cover it (``ASSIGNMENTS``). ``--missing`` lists the kinds not covered.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from purlin_resume.core import redact  # noqa: E402

# gitleaks v8 config/gitleaks.toml, its rule ids (222)
GITLEAKS = (
    "1password-secret-key", "1password-service-account-token", "adafruit-api-key",
    "adobe-client-id", "adobe-client-secret", "age-secret-key", "airtable-api-key",
    "airtable-personnal-access-token", "algolia-api-key", "alibaba-access-key-id",
    "alibaba-secret-key", "anthropic-admin-api-key", "anthropic-api-key", "artifactory-api-key",
    "artifactory-reference-token", "asana-client-id", "asana-client-secret",
    "atlassian-api-token", "authress-service-client-access-key", "aws-access-token",
    "aws-amazon-bedrock-api-key-long-lived", "aws-amazon-bedrock-api-key-short-lived",
    "azure-ad-client-secret", "beamer-api-token", "bitbucket-client-id",
    "bitbucket-client-secret", "bittrex-access-key", "bittrex-secret-key", "cisco-meraki-api-key",
    "clickhouse-cloud-api-secret-key", "clojars-api-token", "cloudflare-api-key",
    "cloudflare-global-api-key", "cloudflare-origin-ca-key", "codecov-access-token",
    "cohere-api-token", "coinbase-access-token", "confluent-access-token", "confluent-secret-key",
    "contentful-delivery-api-token", "curl-auth-header", "curl-auth-user", "databricks-api-token",
    "datadog-access-token", "defined-networking-api-token", "digitalocean-access-token",
    "digitalocean-pat", "digitalocean-refresh-token", "discord-api-token", "discord-client-id",
    "discord-client-secret", "doppler-api-token", "droneci-access-token", "dropbox-api-token",
    "dropbox-long-lived-api-token", "dropbox-short-lived-api-token", "duffel-api-token",
    "dynatrace-api-token", "easypost-api-token", "easypost-test-api-token", "etsy-access-token",
    "facebook-access-token", "facebook-page-access-token", "facebook-secret", "fastly-api-token",
    "finicity-api-token", "finicity-client-secret", "finnhub-access-token", "flickr-access-token",
    "flutterwave-encryption-key", "flutterwave-public-key", "flutterwave-secret-key",
    "flyio-access-token", "frameio-api-token", "freemius-secret-key", "freshbooks-access-token",
    "gcp-api-key", "generic-api-key", "github-app-token", "github-fine-grained-pat",
    "github-oauth", "github-pat", "github-refresh-token", "gitlab-cicd-job-token",
    "gitlab-deploy-token", "gitlab-feature-flag-client-token", "gitlab-feed-token",
    "gitlab-incoming-mail-token", "gitlab-kubernetes-agent-token", "gitlab-oauth-app-secret",
    "gitlab-pat", "gitlab-pat-routable", "gitlab-ptt", "gitlab-rrt",
    "gitlab-runner-authentication-token", "gitlab-runner-authentication-token-routable",
    "gitlab-scim-token", "gitlab-session-cookie", "gitter-access-token", "gocardless-api-token",
    "grafana-api-key", "grafana-cloud-api-token", "grafana-service-account-token",
    "harness-api-key", "hashicorp-tf-api-token", "hashicorp-tf-password", "heroku-api-key",
    "heroku-api-key-v2", "hubspot-api-key", "huggingface-access-token",
    "huggingface-organization-api-token", "infracost-api-token", "intercom-api-key",
    "intra42-client-secret", "jfrog-api-key", "jfrog-identity-token", "jwt", "jwt-base64",
    "kraken-access-token", "kubernetes-secret-yaml", "kucoin-access-token", "kucoin-secret-key",
    "launchdarkly-access-token", "linear-api-key", "linear-client-secret", "linkedin-client-id",
    "linkedin-client-secret", "lob-api-key", "lob-pub-api-key", "looker-client-id",
    "looker-client-secret", "mailchimp-api-key", "mailgun-private-api-token", "mailgun-pub-key",
    "mailgun-signing-key", "mapbox-api-token", "mattermost-access-token", "maxmind-license-key",
    "messagebird-api-token", "messagebird-client-id", "microsoft-teams-webhook",
    "netlify-access-token", "new-relic-browser-api-token", "new-relic-insert-key",
    "new-relic-user-api-id", "new-relic-user-api-key", "notion-api-token", "npm-access-token",
    "nuget-config-password", "nytimes-access-token", "octopus-deploy-api-key",
    "okta-access-token", "openai-api-key", "openshift-user-token", "perplexity-api-key",
    "pkcs12-file", "plaid-api-token", "plaid-client-id", "plaid-secret-key",
    "planetscale-api-token", "planetscale-oauth-token", "planetscale-password",
    "postman-api-token", "prefect-api-token", "private-key", "privateai-api-token",
    "pulumi-api-token", "pypi-upload-token", "rapidapi-access-token", "readme-api-token",
    "rubygems-api-token", "scalingo-api-token", "sendbird-access-id", "sendbird-access-token",
    "sendgrid-api-token", "sendinblue-api-token", "sentry-access-token", "sentry-org-token",
    "sentry-user-token", "settlemint-application-access-token",
    "settlemint-personal-access-token", "settlemint-service-access-token", "shippo-api-token",
    "shopify-access-token", "shopify-custom-access-token", "shopify-private-app-access-token",
    "shopify-shared-secret", "sidekiq-secret", "sidekiq-sensitive-url", "slack-app-token",
    "slack-bot-token", "slack-config-access-token", "slack-config-refresh-token",
    "slack-legacy-bot-token", "slack-legacy-token", "slack-legacy-workspace-token",
    "slack-user-token", "slack-webhook-url", "snyk-api-token", "sonar-api-token",
    "sourcegraph-access-token", "square-access-token", "squarespace-access-token",
    "stripe-access-token", "sumologic-access-id", "sumologic-access-token",
    "telegram-bot-api-token", "travisci-access-token", "twilio-api-key", "twitch-api-token",
    "twitter-access-secret", "twitter-access-token", "twitter-api-key", "twitter-api-secret",
    "twitter-bearer-token", "typeform-api-token", "vault-batch-token", "vault-service-token",
    "yandex-access-token", "yandex-api-key", "yandex-aws-access-token", "zendesk-secret-key",
)  # fmt: skip
# detect-secrets 1.5, its plugins
DETECT_SECRETS = (
    "ArtifactoryDetector", "AWSKeyDetector", "AzureStorageKeyDetector", "Base64HighEntropyString",
    "BasicAuthDetector", "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector",
    "GitLabTokenDetector", "HexHighEntropyString", "IbmCloudIamDetector", "IbmCosHmacDetector",
    "IPPublicDetector", "JwtTokenDetector", "KeywordDetector", "MailchimpDetector", "NpmDetector",
    "OpenAIDetector", "PrivateKeyDetector", "PypiTokenDetector", "SendGridDetector",
    "SlackDetector", "SoftlayerDetector", "SquareOAuthDetector", "StripeDetector",
    "TelegramBotTokenDetector", "TwilioKeyDetector",
)  # fmt: skip
# what the rules for a value given to a secret-named key (``PASSWORD=``, ``api_key:``,
# ``-H "X-Api-Key: …"``) or to a password flag (``curl -u USER:PASSWORD``) cover
ASSIGNMENTS = (
    "generic-api-key",
    "KeywordDetector",
    "hashicorp-tf-password",
    "curl-auth-header",
    "curl-auth-user",
)


def covered(names: tuple[str, ...]) -> tuple[list[str], list[str]]:
    named = " ".join(rule.source for rule in redact.RULES)
    found = {name for name in names if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", named)}
    found |= set(ASSIGNMENTS) & set(names)
    return sorted(found), sorted(set(names) - found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="list the kinds not covered")
    args = parser.parse_args()
    kinds = sorted({rule.kind for rule in redact.RULES})
    print(
        f"rules: {len(redact.RULES)} rules of {len(kinds)} kinds, plus secret-named keys and flags"
    )
    for label, names in (
        ("gitleaks rule ids", GITLEAKS),
        ("detect-secrets plugins", DETECT_SECRETS),
    ):
        found, missing = covered(names)
        share = 100 * len(found) / len(names)
        print(f"{label}: {len(found)} of {len(names)} covered ({share:.0f}%)")
        if args.missing:
            print("  not covered: " + ", ".join(missing))


if __name__ == "__main__":
    main()
