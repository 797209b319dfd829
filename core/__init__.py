"""Tool Atlas engine. Importing this package is cheap: heavy libraries load on first use."""

__version__ = "0.1.0"
