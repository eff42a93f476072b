"""``purlin-resume mcp``: the product's tools for the agent itself, over MCP (stdio).

A shell over the wings, like the CLI: each tool parses its arguments, calls the library and
returns its result with every text value redacted. ``protocol`` speaks MCP over stdio.
"""
