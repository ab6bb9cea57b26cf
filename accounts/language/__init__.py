"""The interface language: the top bar's switch (`views`) and the profile's choice applied to every
request (`middleware`)."""
