"""Tests for the process and HTTP transports."""
