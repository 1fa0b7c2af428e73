"""Discover -> trust -> bind; bounded parsing of untrusted files; files written for the user."""
