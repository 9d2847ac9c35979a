"""Helpers the tests share: imported by test modules, never collected as tests themselves."""
