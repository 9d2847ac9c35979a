"""Provider adapters: a rendered conversation into what a provider's SDK sends, and its reply back.

Each adapter is its own module with its own extra (``agentrender.adapters.anthropic``:
``pip install 'agentrender[anthropic]'``), so importing this package loads no SDK.
"""

__all__: list[str] = []
