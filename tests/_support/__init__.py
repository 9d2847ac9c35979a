"""Helpers the tests share: imported by test modules, never collected as tests themselves.

No test module imports another test module; what two of them need lives here.

- ``runs``: runs and steps built in memory (every kind of step, long runs, hostile and unseen text).
- ``markup``: what a browser would build from an HTML fragment, and the check that hostile text built none of it.
- ``browser``: Debian's Chromium through Playwright, failing under CI and skipping elsewhere when it is missing.
- ``sdk``: whether the Anthropic SDK's own types accept a request.
- ``tools``: the scripts under ``tools/`` as modules.
- ``examples``: how many examples a property test tries under the loaded hypothesis profile.
- ``layers``: the package's floors, read from its imports.
- ``sweep``: a generated evaluation sweep of many small run files (the Parquet tests and docs).
"""
