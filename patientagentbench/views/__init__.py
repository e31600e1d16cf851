"""The HTTP layer, thin: each module is one area of pages (`runs`, `models`, `case_sets`,
`reports`, `home`) and asks domain functions for every read and write."""
