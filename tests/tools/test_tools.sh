#!/bin/sh
# PLACEHOLDER
exit 0
